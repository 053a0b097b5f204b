/**
 * What the signal tests share: a provider with a publisher wallet, statements of each signal type
 * built as a publisher writes them (opaque ids, 128-bit salts), and the routes' paths.
 */
import { randomBytes } from 'node:crypto';
import { signalTerms } from '@signal/core/signal-examples';
import { call, type TestApi } from '../harness.js';
import { type Body, post, type StatementSigner, salt, signed } from './statement-support.js';

export const newId = (prefix = 's') => `${prefix}_${randomBytes(9).toString('base64url')}`;

export interface SignalDesk {
  api: TestApi;
  origin: string;
  providerId: number;
}

export const signalsPath = (providerId: number) => `/providers/${providerId}/signals`;
export const updatesPath = (providerId: number, signalId: string) => `${signalsPath(providerId)}/${signalId}/updates`;

/** A `signal.open` statement's fields, the example signal's terms (override any). */
export function openFields(desk: SignalDesk, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...signalTerms(),
    expiresAt: null,
    id: newId(),
    issuedAt: new Date().toISOString(),
    log: desk.origin,
    provider: desk.providerId,
    salt: salt(),
    type: 'signal.open',
    v: 1,
    ...extra,
  };
}

/** An update, close or cancel statement's fields for `signalId`. */
export function changeFields(
  desk: SignalDesk,
  signalId: string,
  type: 'signal.update' | 'signal.close' | 'signal.cancel',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: newId('u'),
    issuedAt: new Date().toISOString(),
    log: desk.origin,
    provider: desk.providerId,
    salt: salt(),
    signal: signalId,
    type,
    v: 1,
    ...extra,
  };
}

export async function openSignal(desk: SignalDesk, by: StatementSigner, extra: Record<string, unknown> = {}) {
  const body = await signed(openFields(desk, extra), by);
  return { body, reply: await post(desk.api, signalsPath(desk.providerId), body) };
}

export async function changeSignal(
  desk: SignalDesk,
  by: StatementSigner,
  signalId: string,
  type: 'signal.update' | 'signal.close' | 'signal.cancel',
  extra: Record<string, unknown> = {},
) {
  const body: Body = await signed(changeFields(desk, signalId, type, extra), by);
  return { body, reply: await post(desk.api, updatesPath(desk.providerId, signalId), body) };
}

/** A new provider (with `revealDelaySeconds`) with `wallets` as its publishers. */
export async function newDesk(
  api: TestApi,
  origin: string,
  writer: string,
  wallets: string[],
  revealDelaySeconds = 0,
): Promise<SignalDesk> {
  const created = await call(api, 'POST', '/providers', {
    token: writer,
    body: { name: `Desk ${randomBytes(4).toString('hex')}`, revealDelaySeconds },
  });
  if (created.status !== 201) throw new Error(`provider: ${created.status} ${JSON.stringify(created.body)}`);
  for (const wallet of wallets) {
    const added = await call(api, 'POST', `/providers/${created.body.id}/publishers`, {
      token: writer,
      body: { wallet },
    });
    if (added.status !== 201) throw new Error(`publisher: ${added.status} ${JSON.stringify(added.body)}`);
  }
  return { api, origin, providerId: created.body.id };
}
