import { type DependencyList, useCallback, useEffect, useRef, useState } from 'react';

/**
 * The three states every screen shows. While a new request runs, `data` keeps the previous
 * answer, so a table being re-sorted or paged stays on screen (dimmed) instead of flashing.
 */
export type Async<T> =
  | { status: 'loading'; data?: T }
  | { status: 'error'; error: unknown; data?: T }
  | { status: 'ready'; data: T };

export interface AsyncHandle<T> {
  state: Async<T>;
  /** Runs the load again (the Retry button). */
  reload(): void;
  /** Replaces the data in place, e.g. with a follower count a follow returned. */
  update(change: (data: T) => T): void;
}

/** Runs `load` whenever `deps` change; answers of superseded runs are dropped. */
export function useAsync<T>(load: () => Promise<T>, deps: DependencyList): AsyncHandle<T> {
  const [state, setState] = useState<Async<T>>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const run = useRef(0);

  // `load` is new on every render; the caller's deps say when it means something new.
  useEffect(() => {
    const current = ++run.current;
    setState((previous) => ({ status: 'loading', ...(previous.data === undefined ? {} : { data: previous.data }) }));
    load().then(
      (data) => {
        if (run.current === current) setState({ status: 'ready', data });
      },
      (error: unknown) => {
        if (run.current === current) setState((previous) => ({ ...previous, status: 'error', error }));
      },
    );
  }, [...deps, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  const update = useCallback((change: (data: T) => T) => {
    setState((previous) => (previous.data === undefined ? previous : { ...previous, data: change(previous.data) }));
  }, []);
  return { state, reload, update };
}
