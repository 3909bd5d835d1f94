// PostgreSQL aborts one of two transactions that wait on each other; running it again is the documented remedy.
const RETRYABLE_CODES = new Set(['40P01', '40001']);

/** How {@link retryOnDeadlock} retries. */
export interface RetryOptions {
  /** Runs in all, the first included. */
  attempts?: number;
  /** Told of each retried failure, so a deadlock that a retry hid still shows in the log. */
  onRetry?: (error: unknown) => void;
}

/** Runs a transaction body again (up to `attempts` times) when PostgreSQL reports a deadlock or serialization failure. */
export async function retryOnDeadlock<T>(
  run: () => Promise<T>,
  { attempts = 5, onRetry }: RetryOptions = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE_CODES.has(code)) throw error;
      onRetry?.(error);
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}
