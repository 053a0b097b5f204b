/**
 * The log's sequencer and watcher, one per process (docs/log.md, "Sequencing"). Every server
 * runs it; the database's state row lets one at a time integrate (@signal/db's
 * integrateLogEntries). It:
 * - runs a pass right after an append commits here (`kick`), and every POLL_MS for entries other
 *   servers accepted (a pass is one small query when nothing waits);
 * - keeps the newest checkpoint it has seen, never an older one: what this server serves, so the
 *   sizes one server shows never go down;
 * - wakes, in memory, the appenders waiting for their entry to be in a signed checkpoint
 *   (`waitFor`): one query per pass for all of them, none per request;
 * - tells the live hub (live-hub.ts) when the served checkpoint grows (`onAdvance`): the one
 *   wake-up per process of `signals.live`, whichever server sequenced the entries.
 * No LISTEN/NOTIFY and no session lock: both are lost behind a transaction-mode pooler.
 */
import type { NoteSigner } from '@signal/core/log';
import { signCheckpoint } from '@signal/core/log';
import { findLogIndexes, integrateLogEntries, type LogAcceptance, readLogState } from '@signal/db';
import type { LogInclusion, LogSequencer, ServedCheckpoint, Services } from '../procedures/context.js';
import { serialPasses } from './serial-passes.js';

/** How often each process looks for entries accepted elsewhere (the 1 s promise has room for it). */
const POLL_MS = 100;
/** Entries per integrating transaction: bounds its length, and the lock's. */
export const LOG_BATCH_SIZE = 10_000;

interface Waiter {
  acceptance: LogAcceptance;
  resolve: (inclusion: LogInclusion | undefined) => void;
}

export function createLogSequencer(services: Pick<Services, 'database' | 'log'>, signer: NoteSigner): LogSequencer {
  const { db } = services.database;
  const waiters = new Map<number, Waiter[]>();
  let served: ServedCheckpoint | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** Waiters registered since the last lookup (their entry may be in the tree already). */
  let unchecked = false;
  /** The size the last lookup covered. */
  let lookedUpTo = 0;
  let foreignKeyLogged = false;
  const listeners: ((size: number) => void)[] = [];

  const sign = (size: number, rootHash: Uint8Array) => ({
    checkpoint: signCheckpoint({ origin: signer.name, size, rootHash }, signer),
    verifierKey: signer.verifierKey,
  });

  /** Only ever forward: a server never serves an older checkpoint than one it served. */
  const observe = (size: number, note: string | null) => {
    if (note !== null && (!served || size > served.size)) {
      served = { size, note };
      for (const listener of listeners) listener(size);
    }
  };

  const settle = (acceptanceId: number, inclusion: LogInclusion | undefined) => {
    for (const waiter of waiters.get(acceptanceId) ?? []) waiter.resolve(inclusion);
    waiters.delete(acceptanceId);
  };

  const wakeWaiters = async () => {
    const head = served;
    if (!head || waiters.size === 0 || (!unchecked && head.size <= lookedUpTo)) return;
    unchecked = false;
    const all = [...waiters.values()].flat();
    const from = Math.min(...all.map((w) => w.acceptance.minIndex));
    const found = await findLogIndexes(db, { from, to: head.size, ids: [...waiters.keys()] });
    lookedUpTo = head.size;
    for (const [acceptanceId, logIndex] of found) settle(acceptanceId, { logIndex, checkpoint: head });
  };

  const pass = async () => {
    const state = await readLogState(db);
    observe(state.size, state.checkpoint);
    if (state.pending || state.checkpoint === null) {
      for (;;) {
        const outcome = await integrateLogEntries(db, {
          batchSize: LOG_BATCH_SIZE,
          sign,
          verifierKey: signer.verifierKey,
        });
        if (outcome.kind === 'foreign-key') {
          if (!foreignKeyLogged) {
            foreignKeyLogged = true;
            services.log.error(
              { logKey: signer.verifierKey, signedBy: outcome.verifierKey },
              'this server does not sequence the log: its LOG_PRIVATE_KEY is not the key that signed it (servers sharing a database must share the key; docs/log.md)',
            );
          }
          break;
        }
        if (outcome.kind === 'busy') break;
        observe(outcome.size, outcome.checkpoint);
        if (outcome.kind === 'idle' || outcome.integrated < LOG_BATCH_SIZE || stopped) break;
      }
    }
    await wakeWaiters();
  };

  const passes = serialPasses(
    pass,
    // The database away: the next poll tries again; waiters wait (bounded by their maxWaitMs).
    (error) => services.log.warn({ err: error }, 'log sequencer pass failed'),
    () => stopped,
  );
  const { run } = passes;

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void run().finally(schedule);
    }, POLL_MS);
    timer.unref();
  };

  return {
    verifierKey: signer.verifierKey,
    origin: signer.name,
    checkpoint: () => served,
    kick() {
      if (!stopped) void run();
    },
    onAdvance(listener) {
      listeners.push(listener);
    },
    waitFor(acceptance, { maxWaitMs, signal }) {
      if (stopped || signal?.aborted) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const waiter: Waiter = {
          acceptance,
          resolve: (inclusion) => {
            clearTimeout(deadline);
            signal?.removeEventListener('abort', abandon);
            resolve(inclusion);
          },
        };
        const abandon = () => {
          const list = (waiters.get(acceptance.id) ?? []).filter((w) => w !== waiter);
          if (list.length > 0) waiters.set(acceptance.id, list);
          else waiters.delete(acceptance.id);
          waiter.resolve(undefined);
        };
        const deadline = setTimeout(abandon, maxWaitMs);
        signal?.addEventListener('abort', abandon, { once: true });
        waiters.set(acceptance.id, [...(waiters.get(acceptance.id) ?? []), waiter]);
        unchecked = true;
        void run();
      });
    },
    async start() {
      await run();
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await passes.running();
      for (const id of [...waiters.keys()]) settle(id, undefined);
    },
  };
}
