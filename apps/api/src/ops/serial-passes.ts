/**
 * A pass that never overlaps itself (the log sequencer's, the live hub's): `run()` starts one,
 * or, while one runs, asks for one more after it, however many calls come meanwhile; passes go
 * on while asked and not `stopped()`. A failed pass goes to `failed` and the loop goes on.
 */
export interface SerialPasses {
  /** Starts a pass or asks for another; settles when no more are asked for. */
  run(): Promise<void>;
  /** The loop in progress, if any (awaited by a stop). */
  running(): Promise<void> | undefined;
}

export function serialPasses(
  pass: () => Promise<void>,
  failed: (error: unknown) => void,
  stopped: () => boolean,
): SerialPasses {
  let running: Promise<void> | undefined;
  let again = false;
  const run = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await pass();
        } catch (error) {
          failed(error);
        }
      } while (again && !stopped());
      running = undefined;
    })();
    return running;
  };
  return { run, running: () => running };
}
