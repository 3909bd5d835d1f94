// The tuning of the embedded queue, shared by its producer side, its consumers and their attempts.
import { FAILURE_RETRY_DEFAULTS, type FailureRetry } from './record-failure.ts';

/** Tuning of the embedded queue. */
export interface EmbeddedQueueOptions {
  /** How long a claimed job stays with its worker without a heartbeat before another worker may take it. */
  leaseMs: number;
  /** How often an idle worker looks for due jobs (an enqueue in the same process wakes it at once). */
  pollMs: number;
  /** Wait before the second attempt; each later attempt waits four times longer. */
  backoffMs: number;
  /** Attempts a job gets unless its enqueue says otherwise. */
  maxAttempts: number;
  /** How long a job's final failure (the job's row, then its failure handler) is retried while it cannot be written. */
  failureRetry: FailureRetry;
  /** Where the queue reports what it does. */
  logger: Pick<Console, 'info' | 'warn' | 'error'>;
}

/** Defaults of {@link EmbeddedQueueOptions}. */
export const EMBEDDED_QUEUE_DEFAULTS: EmbeddedQueueOptions = {
  leaseMs: 30_000,
  pollMs: 1_000,
  backoffMs: 5_000,
  maxAttempts: 3,
  failureRetry: FAILURE_RETRY_DEFAULTS,
  logger: console,
};
