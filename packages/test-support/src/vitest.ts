/**
 * Fixtures for vitest suites: a resource started once for a file (or a describe block), and a
 * block per database backend.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { BACKENDS, type Backend, createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

/**
 * A handle on a resource of the enclosing file or describe block: `start` runs before its first
 * test and the resource's `stop` after its last. The handle reads through to the started
 * resource (`api.url`, `call(api, …)`), so tests use it as the thing itself; reading it outside
 * a test throws, naming the mistake.
 */
export function startedForTests<T extends { stop(): Promise<void> }>(start: () => Promise<T>): T {
  return readThrough(startedSlot(start));
}

/**
 * A scratch PostgreSQL database of the enclosing file or describe block: created before its first
 * test, dropped after its last (after the block's own afterAll hooks, which run first).
 */
export function scratchDatabaseForTests(): ScratchDatabase {
  return startedForTests(async () => {
    const scratch = await createScratchDatabase();
    return { ...scratch, stop: () => scratch.drop() };
  });
}

/**
 * Parts of one resource started as `startedForTests` starts it, each a handle of its own, so a
 * block can destructure them where it declares them (`const { a, b } = startedPartsForTests(…)`).
 */
export function startedPartsForTests<T extends { stop(): Promise<void> }, K extends keyof T>(
  start: () => Promise<T>,
  keys: readonly K[],
): Pick<T, K> {
  const current = startedSlot(start);
  return Object.fromEntries(
    keys.map((key) => [key, readThrough(() => current()?.[key] as (T[K] & object) | undefined)]),
  ) as Pick<T, K>;
}

/** Starts `start` before the block's first test and stops it after its last; reads the started value. */
function startedSlot<T extends { stop(): Promise<void> }>(start: () => Promise<T>): () => T | undefined {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    await current?.stop();
    current = undefined;
  });
  return () => current;
}

/** A handle that reads through to `current()`, and names the mistake when read with nothing there. */
function readThrough<T extends object>(current: () => T | undefined): T {
  const started = (key: string | symbol): T => {
    const value = current();
    if (!value) throw new Error(`read .${String(key)} of a test fixture outside its tests (before or after them)`);
    return value;
  };
  return new Proxy({} as T, {
    get(_, key) {
      // Not a thenable, and printable, before it starts.
      if (!current() && (key === 'then' || typeof key === 'symbol')) return undefined;
      const target = started(key);
      const value = Reflect.get(target, key);
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(_, key, value) {
      return Reflect.set(started(key), key, value);
    },
    has(_, key) {
      return Reflect.has(started(key), key);
    },
  });
}

/** describe.each over both backends: `name` with `%s` for the backend. */
export function describeBackends(name: string, body: (backend: Backend) => void): void {
  describe.each(BACKENDS)(name, body);
}
