/**
 * Waiting for something that may never come (an agent that does not answer `session/new`) in a
 * turn the person can stop: the wait ends as soon as the turn's signal aborts, with
 * {@link TurnStopped}; what was waited for goes on, and its outcome is left to the caller.
 */

/** The person stopped the turn while it was still waiting (not a failure: the turn ends as cancelled). */
export class TurnStopped extends Error {
  constructor() {
    super('Stopped before the agent answered.');
  }
}

/** `promise`, unless `signal` aborts first: then a rejection with {@link TurnStopped}. */
export function untilStopped<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) {
    return promise;
  }
  if (signal.aborted) {
    // Its outcome is the caller's to handle; never an unhandled rejection here.
    promise.catch(() => undefined);
    return Promise.reject(new TurnStopped());
  }
  return new Promise<T>((resolve, reject) => {
    const stop = (): void => reject(new TurnStopped());
    signal.addEventListener('abort', stop, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', stop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    );
  });
}
