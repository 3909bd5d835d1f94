import type { Db } from '../db/database.ts';
import type { JobHandlers, JobLane, JobName, JobPayloads } from './job-types.ts';

/** Where a queue write goes: the caller's open transaction, so the job commits (or not) with the caller's rows. */
export interface InTransaction {
  /**
   * The transaction to write in. The embedded queue lives in the service's database and writes its row there; a
   * queue kept elsewhere must record the job in the same transaction (an outbox) to honour it.
   */
  transaction?: Db;
}

/** What a queue holds of the jobs about a subject; see {@link JobQueue.jobState}. */
export type JobState = 'live' | 'ended' | 'none';

/** Options of one enqueued job. */
export interface EnqueueOptions extends InTransaction {
  /** What the job is about (a model id); {@link JobQueue.cancelQueued} finds jobs by it. */
  subject?: string;
  /** While a job with this key is queued, enqueueing another with the same key adds nothing. */
  dedupeKey?: string;
  /** Attempts in all before the job fails for good (default 3: the first run and two retries). */
  maxAttempts?: number;
  /** Holds the job back this long; {@link JobQueue.promote} makes it due sooner (BullMQ's `delay`). */
  delayMs?: number;
}

/** Result of an enqueue. */
export interface EnqueueResult {
  id: string;
  /** True when an identical queued job already existed and no new one was added. */
  deduplicated: boolean;
}

/** Options of a queue consumer: the loop that claims and runs jobs. */
export interface ConsumerOptions {
  /** Jobs run at the same time. */
  concurrency: number;
  /** The lane whose jobs this consumer claims (default `work`: every job but webhook deliveries). */
  lane?: JobLane;
}

/** A running queue consumer. */
export interface QueueConsumer {
  /** Stops claiming, aborts running jobs and hands them back to the queue, then resolves. */
  stop(): Promise<void>;
}

/**
 * A durable job queue: the embedded queue in the database, or BullMQ on Redis (`REDIS_URL`). Kept to what both
 * offer: job ids, attempts with back-off, leases/stalled-job recovery, dedupe while queued.
 */
export interface JobQueue {
  /** Adds a job. */
  enqueue<N extends JobName>(
    name: N,
    payload: JobPayloads[N],
    options?: EnqueueOptions,
  ): Promise<EnqueueResult>;
  /** Makes a held-back job due now and wakes the workers; a job already due or gone is left as it is. */
  promote(id: string): Promise<void>;
  /**
   * Whether a job of this name about the subject is still to run or running: waiting, held back, due for a retry
   * or claimed. False once it completed, failed for good or was removed. Rejects when the queue cannot be asked.
   */
  hasLiveJob(subject: string, name: JobName): Promise<boolean>;
  /**
   * What the queue holds of jobs of this name about the subject: `live` as {@link hasLiveJob} says, `ended` when the
   * only ones it holds completed or failed for good, `none` when it holds none at all (lost with a Redis that
   * restarted without persistence, or removed). Rejects when the queue cannot be asked.
   */
  jobState(subject: string, name: JobName): Promise<JobState>;
  /** Removes queued (not running) jobs about a subject; returns how many. */
  cancelQueued(subject: string, options?: InTransaction): Promise<number>;
  /** Starts claiming and running jobs with one handler per job name. */
  startConsumer(handlers: JobHandlers, options: ConsumerOptions): QueueConsumer;
  /**
   * Rejects when the queue's own server does not answer (Redis for BullMQ). Absent on a queue that lives in the
   * service's database, which `/health` checks by itself.
   */
  ping?(): Promise<void>;
  /** Releases what the queue holds open (connections, timers); its consumers are stopped first. */
  close(): Promise<void>;
}
