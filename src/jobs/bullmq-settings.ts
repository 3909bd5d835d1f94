import { JobLane } from './job-types.ts';
import { FAILURE_RETRY_DEFAULTS, type FailureRetry } from './record-failure.ts';

/** Tuning of the BullMQ queue. */
export interface BullmqQueueOptions {
  /** `redis://` or `rediss://` URL of the Redis server. */
  redisUrl: string;
  /** First part of every Redis key, so several installations (or test suites) can share one Redis. */
  prefix: string;
  /** How long a running job stays with a worker that stopped renewing its lock (a killed process). */
  leaseMs: number;
  /** How often the outbox is relayed to Redis (a promote relays its job at once). */
  pollMs: number;
  /** Wait before the second attempt; each later attempt waits four times longer. */
  backoffMs: number;
  /** Attempts a job gets unless its enqueue says otherwise. */
  maxAttempts: number;
  /** Reaching Redis at start, and one command of an enqueue, before the queue counts as unavailable. */
  connectTimeoutMs: number;
  /** How long a job's failure handler is retried while it fails (its database away, say). */
  failureRetry: FailureRetry;
  /** Where the queue reports what it does. */
  logger: Pick<Console, 'info' | 'warn' | 'error'>;
}

/** Defaults of {@link BullmqQueueOptions}. */
export const BULLMQ_QUEUE_DEFAULTS: Omit<BullmqQueueOptions, 'redisUrl'> = {
  prefix: 'vitrine',
  leaseMs: 30_000,
  pollMs: 1_000,
  backoffMs: 5_000,
  maxAttempts: 3,
  connectTimeoutMs: 5_000,
  failureRetry: FAILURE_RETRY_DEFAULTS,
  logger: console,
};

/** The BullMQ queue of the `work` lane (every job but webhook deliveries); job names tell the jobs apart. */
export const BULLMQ_QUEUE_NAME = 'jobs';

/** The BullMQ queue of each lane: a worker takes every job of its queue, so each lane has a queue of its own. */
export const BULLMQ_LANE_QUEUES: Record<JobLane, string> = {
  [JobLane.Work]: BULLMQ_QUEUE_NAME,
  [JobLane.Webhooks]: 'webhook-deliveries',
};

/** What a BullMQ job carries besides its name. */
export interface StoredJob {
  payload: unknown;
  subject: string | null;
}

// Stalls are counted as lost attempts by the queue itself, against each job's own attempts.
export const UNLIMITED_STALLS = 1_000_000;
/** The failure of a job whose attempts all went with workers that died. */
export const LOST_WORKER = 'The worker running this job stopped responding';
