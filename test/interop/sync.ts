/** Small promise tools to line up agents and `tasks` processes in one scenario. */

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Resolves `all` once `count` parties have arrived. Used with the mock model's
 * `beforeTurn` hook: every agent is held at the door until all are there, so their tool
 * calls start together instead of one agent's start-up after another's.
 */
export function barrier(count: number): { arrive: () => void; all: Promise<void> } {
  const done = deferred();
  let arrived = 0;
  return {
    arrive: () => {
      arrived += 1;
      if (arrived === count) done.resolve();
    },
    all: done.promise,
  };
}

/**
 * A count that others can wait on: `reached(n)` resolves once `add` has been called n
 * times, or once `release` is called (the counting side finished or failed: nobody may
 * be left waiting, or an agent would hang on a reply that never comes).
 */
export function counter(): { add: () => void; release: () => void; reached: (n: number) => Promise<void> } {
  let value = 0;
  let released = false;
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const wake = () => {
    for (const w of waiters.filter((x) => released || x.n <= value)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  return {
    add: () => {
      value += 1;
      wake();
    },
    release: () => {
      released = true;
      wake();
    },
    reached: (n) => (released || n <= value ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve }))),
  };
}
