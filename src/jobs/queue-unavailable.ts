/** What a client is told while the job queue (Redis) cannot be reached. */
export const QUEUE_UNAVAILABLE = 'job queue unavailable, try again shortly';

/** Thrown when a queue write cannot reach the queue's server; the API answers 503 and the caller may retry. */
export class QueueUnavailableError extends Error {
  override readonly name = 'QueueUnavailableError';

  constructor(cause: unknown) {
    super(`${QUEUE_UNAVAILABLE} (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
}
