import { TRPCError } from '@trpc/server';
import { expect } from 'vitest';

/** What a procedure call gave, comparable across callers: its answer, or its TRPCError's code, message and cause. */
export type Outcome = { ok: true; data: unknown } | { ok: false; code: string; message: string; cause?: string };

export async function outcome(promise: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, data: await promise };
  } catch (error) {
    expect(error).toBeInstanceOf(TRPCError);
    const e = error as TRPCError;
    return { ok: false, code: e.code, message: e.message, cause: e.cause?.message };
  }
}
