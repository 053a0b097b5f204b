/**
 * lastUsedAt of service keys without a database write per request: each server keeps the
 * latest use of each key in memory and writes them in one batch at most every
 * USAGE_FLUSH_INTERVAL_MS (the contract lets lastUsedAt lag by 60 s), and once more when the
 * server stops. A failed write keeps the uses for the next flush.
 */
import { recordServiceKeysUsed } from '@signal/db';
import type { KeyUsage, Services } from '../procedures/context.js';

export const USAGE_FLUSH_INTERVAL_MS = 30_000;

export interface ServiceKeyUsage extends KeyUsage {
  /** Writes what was gathered; also the last call at shutdown. */
  flush(): Promise<void>;
}

/** One per server (services.ts): procedures note uses through Services' keyUsage. */
export function createServiceKeyUsage(services: Pick<Services, 'database' | 'log'>): ServiceKeyUsage {
  let pending = new Map<string, Date>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;

  const write = async () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = new Map();
    if (batch.size === 0) return;
    try {
      await recordServiceKeysUsed(
        services.database.db,
        [...batch].map(([id, at]) => ({ id, at })),
      );
    } catch (error) {
      // An outage: keep the uses (a later one of the same key wins) for the next flush.
      for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at);
      services.log.warn({ err: error }, 'recording service key use failed');
    }
  };
  const flush = async () => {
    await writing;
    writing = write();
    await writing;
    writing = undefined;
  };
  return {
    used(keyId, at) {
      const seen = pending.get(keyId);
      if (!seen || seen < at) pending.set(keyId, at);
      if (!timer) {
        timer = setTimeout(() => void flush(), USAGE_FLUSH_INTERVAL_MS);
        timer.unref();
      }
    },
    flush,
  };
}
