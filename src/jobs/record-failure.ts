// A job's final failure must reach its record (a model's `failed` status) even when the database is away at that
// moment: the queue retries the write with back-off instead of logging it once and leaving the model `processing`.

/** How long and how often the queue retries recording a job's final failure. */
export interface FailureRetry {
  /** Wait before the second try; each later wait doubles, up to `maxDelayMs`. */
  firstDelayMs: number;
  /** Longest wait between two tries. */
  maxDelayMs: number;
  /** Time after the first try past which no try starts; the last error is then thrown. */
  forMs: number;
}

/** Defaults of {@link FailureRetry}: a few minutes covers a database restart or a failover. */
export const FAILURE_RETRY_DEFAULTS: FailureRetry = {
  firstDelayMs: 1_000,
  maxDelayMs: 15_000,
  forMs: 300_000,
};

/**
 * Runs `record` until it succeeds, waiting between tries, and throws its last error once `retry.forMs` has passed
 * or `stop` aborts (the worker is shutting down, or the job went to another worker): whatever is left is then for
 * the sweep of stranded models. `onRetry` hears each failed try that will be tried again.
 */
export async function recordWithRetries(
  record: () => Promise<void>,
  retry: FailureRetry,
  stop: AbortSignal | undefined,
  onRetry: (error: unknown, tries: number) => void,
): Promise<void> {
  const deadline = Date.now() + retry.forMs;
  let delay = retry.firstDelayMs;
  for (let tries = 1; ; tries++) {
    try {
      await record();
      return;
    } catch (error) {
      if (stop?.aborted || Date.now() + delay > deadline) throw error;
      onRetry(error, tries);
      await pause(delay, stop);
      delay = Math.min(delay * 2, retry.maxDelayMs);
    }
  }
}

/** Waits `ms`, or less when `stop` aborts. */
function pause(ms: number, stop: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop?.addEventListener('abort', done, { once: true });
  });
}
