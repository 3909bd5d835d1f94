import { DelayedError, UnrecoverableError, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import {
  BULLMQ_LANE_QUEUES,
  LOST_WORKER,
  UNLIMITED_STALLS,
  type BullmqQueueOptions,
  type StoredJob,
} from './bullmq-settings.ts';
import {
  DeferJobError,
  JobLane,
  JobName,
  PermanentJobError,
  type Job,
  type JobHandlers,
} from './job-types.ts';
import type { ConsumerOptions, QueueConsumer } from './queue.ts';
import { recordWithRetries } from './record-failure.ts';
import { isRedisUnavailable, openRedis } from './redis-connection.ts';

/** Takes the dedupe key for a job that goes back to waiting; false when a queued copy holds it. */
export type ClaimDedupeKey = (job: BullJob<StoredJob>) => Promise<boolean>;

/** What a consumer needs from the queue that starts it. */
export interface ConsumerContext {
  settings: BullmqQueueOptions;
  claimDedupeKey: ClaimDedupeKey;
  /** Drops a finished job from its subject's index. */
  forgetJob(subject: string, id: string): void;
  /** Told once the consumer has stopped. */
  onStopped(): void;
}

/** A job this consumer runs: how to stop it, and whether its lease went to another worker. */
interface RunningJob {
  controller: AbortController;
  lockLost: boolean;
}

/** Puts a job back to waiting without counting the attempt (stopping, or its run was cancelled). */
async function handBack(
  job: BullJob<StoredJob>,
  token: string | undefined,
  claimDedupeKey: ClaimDedupeKey,
): Promise<void> {
  // A copy queued meanwhile already covers this work: this job ends here instead of waiting beside it.
  if (job.deduplicationId && !(await claimDedupeKey(job))) return;
  // Back to waiting without counting the attempt (moveToWait leaves attemptsMade and the stall count as
  // they were), for another worker or the next start; WaitingError tells BullMQ the move is done.
  await job.moveToWait(token);
  throw new WaitingError();
}

/** Runs one attempt of a job with its handler and settles it: done, handed back, deferred, retried or failed. */
async function runJob(
  job: BullJob<StoredJob>,
  token: string | undefined,
  entry: RunningJob,
  handlers: JobHandlers,
  { settings, claimDedupeKey }: ConsumerContext,
): Promise<void> {
  const { logger } = settings;
  const name = job.name as JobName;
  const maxAttempts = job.opts.attempts ?? settings.maxAttempts;
  // Failed attempts plus attempts lost with a dead worker; a hand-back counts as neither.
  const attempt = job.attemptsMade + job.stalledCounter + 1;
  const view: Job = {
    id: job.id!,
    name,
    payload: job.data.payload as Job['payload'],
    attempt,
    maxAttempts,
  };
  const { signal } = entry.controller;
  // A started job no longer absorbs enqueues with its key: they may ask for work newer than what it does.
  if (job.deduplicationId) await job.removeDeduplicationKey();
  const handler = handlers[name] as JobHandlers[JobName] | undefined;
  try {
    signal.throwIfAborted();
    if (!handler) throw new PermanentJobError(`Unknown job "${job.name}"`);
    if (attempt > maxAttempts) throw new PermanentJobError(LOST_WORKER);
    await (handler.run as (job: Job, signal: AbortSignal) => Promise<void>)(view, signal);
  } catch (thrown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    // The lock went to another worker after a long pause: the job is theirs, BullMQ refuses our outcome.
    if (entry.lockLost) throw error;
    if (signal.aborted) return handBack(job, token, claimDedupeKey);
    if (error instanceof DeferJobError) {
      // Back to delayed without counting the attempt (moveToDelayed skips it); DelayedError says it is done.
      await job.moveToDelayed(Date.now() + error.delayMs, token);
      throw new DelayedError();
    }
    const final = error instanceof PermanentJobError || attempt >= maxAttempts;
    logger.warn(
      { job_id: view.id, subject: job.data.subject, name, attempt, err: error.message, final },
      'job queue: attempt failed',
    );
    if (final) {
      if (handler) {
        // Retried while the job is still active here: BullMQ keeps renewing its lock meanwhile.
        await recordWithRetries(
          () => (handler.failed as (job: Job, error: Error) => Promise<void>)(view, error),
          settings.failureRetry,
          signal,
          (e, tries) => {
            if (tries === 1)
              logger.warn({ err: e, job_id: view.id }, 'job queue: failure handler failed; retrying');
          },
        ).catch((e: unknown) =>
          logger.error({ err: e, job_id: view.id }, 'job queue: failure handler failed'),
        );
      }
      throw new UnrecoverableError(error.message);
    }
    if (job.deduplicationId && !(await claimDedupeKey(job))) {
      // A copy queued while this one ran covers the retry.
      return;
    }
    throw error;
  }
}

/**
 * Starts a BullMQ worker on one lane's queue, with its own Redis connection: runs each job with its handler,
 * hands running jobs back on stop without counting the attempt, and stops a job whose lease went elsewhere.
 */
export function startBullmqConsumer(
  handlers: JobHandlers,
  consumerOptions: ConsumerOptions,
  context: ConsumerContext,
): QueueConsumer {
  const { settings, forgetJob, onStopped } = context;
  const { logger } = settings;
  for (const name of Object.values(JobName)) {
    if (!handlers[name]) throw new Error(`No handler for job "${name}"`);
  }
  const running = new Map<string, RunningJob>();
  let stopping = false;

  const connection: Redis = openRedis(settings.redisUrl, {
    role: 'worker',
    commandTimeoutMs: settings.connectTimeoutMs,
  });
  const worker = new Worker<StoredJob>(
    BULLMQ_LANE_QUEUES[consumerOptions.lane ?? JobLane.Work],
    async (job, token) => {
      const entry = { controller: new AbortController(), lockLost: false };
      // Fetched while stopping: handed straight back.
      if (stopping) entry.controller.abort();
      running.set(job.id!, entry);
      try {
        await runJob(job, token, entry, handlers, context);
      } finally {
        running.delete(job.id!);
      }
    },
    {
      connection,
      prefix: settings.prefix,
      concurrency: consumerOptions.concurrency,
      lockDuration: settings.leaseMs,
      stalledInterval: settings.leaseMs,
      maxStalledCount: UNLIMITED_STALLS,
      // Short polls keep a stop quick; a new job wakes the worker at once anyway.
      drainDelay: 1,
      settings: {
        // BullMQ passes the failed attempts including this one; attempts lost with a dead worker count too.
        backoffStrategy: (attemptsMade: number, _type?: string, _error?: Error, job?: unknown) =>
          settings.backoffMs *
          4 ** (attemptsMade - 1 + ((job as { stalledCounter?: number } | undefined)?.stalledCounter ?? 0)),
      },
    },
  );
  let connectionFailing = false;
  worker.on('error', (error) => {
    // Redis went away: BullMQ keeps reconnecting and the worker carries on when it is back.
    if (isRedisUnavailable(error, connection)) {
      if (!connectionFailing) logger.warn({ err: error }, 'job queue: Redis unavailable; reconnecting');
      connectionFailing = true;
      return;
    }
    // A lock that ran out while Redis was away: the job went back to the queue and runs again.
    if (/Missing lock/.test(error.message)) {
      logger.warn({ err: error }, 'job queue: lock lost while Redis was away; the job runs again');
      return;
    }
    logger.error({ err: error }, 'job queue: worker error');
  });
  worker.on('ready', () => {
    if (connectionFailing) logger.info({}, 'job queue: Redis reachable again');
    connectionFailing = false;
  });
  worker.on('lockRenewalFailed', (ids) => {
    for (const id of ids) {
      const entry = running.get(id);
      if (!entry || entry.controller.signal.aborted) continue;
      logger.warn({ job_id: id }, 'job queue: lease lost to another worker; stopping');
      entry.lockLost = true;
      entry.controller.abort();
    }
  });
  worker.on('completed', (job) => {
    if (job.data.subject) forgetJob(job.data.subject, job.id!);
  });

  let stopped: Promise<void> | undefined;
  const consumer: QueueConsumer = {
    stop() {
      stopped ??= (async () => {
        stopping = true;
        for (const { controller } of running.values()) controller.abort();
        // Waits for every running job to be handed back or finished.
        await worker.close();
        connection.disconnect();
        onStopped();
      })();
      return stopped;
    },
  };
  return consumer;
}
