/**
 * Checks a provider's record in the browser: every listed signal through the SDK's
 * `verifySignal` against the log's verifier key, all against one signed checkpoint.
 */
import type { Signal } from './signals';

export type RecordVerdict =
  | {
      ok: true;
      /** The size of the checkpoint every statement was checked against. */
      checkpoint: number;
      keyName: string;
      key: string;
      pinnedAt: string;
      signals: number;
      statements: number;
      unrevealed: number;
      ms: number;
    }
  | { ok: false; check: string; message: string; key?: string };

export async function verifyRecord(_providerId: number, _signals: Signal[]): Promise<RecordVerdict> {
  throw new Error('verifySignal is not in this build of the SDK yet');
}
