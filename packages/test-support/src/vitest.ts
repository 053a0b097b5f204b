/**
 * Fixtures for vitest suites: a resource started once for a file (or a describe block), and a
 * block per database backend.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { BACKENDS, type Backend } from './scratch-database.js';

/**
 * A handle on a resource of the enclosing file or describe block: `start` runs before its first
 * test and the resource's `stop` after its last. The handle reads through to the started
 * resource (`api.url`, `call(api, …)`), so tests use it as the thing itself; reading it outside
 * a test throws, naming the mistake.
 */
export function startedForTests<T extends { stop(): Promise<void> }>(start: () => Promise<T>): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    await current?.stop();
    current = undefined;
  });
  const started = (key: string | symbol): T => {
    if (!current) throw new Error(`read .${String(key)} of a test fixture outside its tests (before or after them)`);
    return current;
  };
  return new Proxy({} as T, {
    get(_, key) {
      // Not a thenable, and printable, before it starts.
      if (!current && (key === 'then' || typeof key === 'symbol')) return undefined;
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
