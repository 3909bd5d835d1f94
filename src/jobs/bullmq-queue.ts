import { randomUUID } from 'node:crypto';
import { DelayedError, Queue, UnrecoverableError, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { JobOutboxRow } from '../db/database.ts';
import { createJobOutbox, type OutboxJob } from './job-outbox.ts';
import {
  DeferJobError,
  JOB_LANE,
  JobLane,
  JobName,
  PermanentJobError,
  type Job,
  type JobHandlers,
} from './job-types.ts';
import type { EnqueueResult, JobQueue, QueueConsumer } from './queue.ts';
import { FAILURE_RETRY_DEFAULTS, recordWithRetries, type FailureRetry } from './record-failure.ts';
import { QueueUnavailableError } from './queue-unavailable.ts';
import { isRedisUnavailable, openRedis, untilReachable } from './redis-connection.ts';

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

const BACKOFF_TYPE = 'times-four';
// Completed job ids stay known this long, so relaying an outbox row a second time (a relay that died between adding
// the job and deleting the row) finds the job instead of running it again.
const KEEP_COMPLETED_SECONDS = 3_600;
// Failed jobs are kept for inspection, the oldest dropped beyond this many.
const KEEP_FAILED = 10_000;
const RELAY_BATCH = 100;
// Stalls are counted as lost attempts by the queue itself, against each job's own attempts.
const UNLIMITED_STALLS = 1_000_000;
const LOST_WORKER = 'The worker running this job stopped responding';
// States of a job that will still run or is running.
const LIVE_STATES = new Set(['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children', 'active']);

/** What a BullMQ job carries besides its name. */
interface StoredJob {
  payload: unknown;
  subject: string | null;
}

/** A job on its way into Redis, from an enqueue or from the outbox: held back by a delay, not until a time. */
type NewJob = Omit<OutboxJob, 'runAt'> & { delayMs: number };

// Takes a job's dedupe key for it unless another job that still exists holds it (a queued copy): 1 taken, 0 not.
const CLAIM_DEDUPE_KEY = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] and redis.call('EXISTS', ARGV[2] .. holder) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/**
 * The job queue on Redis with BullMQ, for API and worker processes spread over machines. Jobs written inside a
 * database transaction go to an outbox table first and are relayed once committed, so a model row and its job
 * cannot come apart. Running jobs are handed back on stop without counting the attempt; a worker that dies loses
 * its lock and the job goes to another worker. Rejects with a message naming REDIS_URL when Redis does not answer.
 */
export async function openBullmqQueue(
  database: DatabaseHandle,
  options: Partial<BullmqQueueOptions> & Pick<BullmqQueueOptions, 'redisUrl'>,
): Promise<JobQueue> {
  const settings: BullmqQueueOptions = { ...BULLMQ_QUEUE_DEFAULTS, ...options };
  const { logger } = settings;
  const redis = openRedis(settings.redisUrl, {
    role: 'producer',
    commandTimeoutMs: settings.connectTimeoutMs,
  });
  try {
    await untilReachable(redis, settings.redisUrl, settings.connectTimeoutMs);
  } catch (error) {
    redis.disconnect();
    throw error;
  }
  const queues = new Map<JobLane, Queue<StoredJob>>();
  for (const lane of Object.values(JobLane)) {
    const laneQueue = new Queue<StoredJob>(BULLMQ_LANE_QUEUES[lane], {
      connection: redis,
      prefix: settings.prefix,
    });
    // Connection failures reach the command that meets them; the queue's own copy of each would only be noise.
    laneQueue.on('error', () => {});
    await laneQueue.waitUntilReady();
    queues.set(lane, laneQueue);
  }
  const queueOf = (name: string) => queues.get(JOB_LANE[name as JobName] ?? JobLane.Work)!;
  /** A job by id, in whichever lane's queue it is. */
  const findJob = async (id: string): Promise<BullJob<StoredJob> | undefined> => {
    for (const laneQueue of queues.values()) {
      const job = await laneQueue.getJob(id);
      if (job) return job;
    }
    return undefined;
  };
  // Subjects are indexed under the work queue's keys whatever the lane, so one cancel finds all their jobs.
  const keyPrefix = `${queues.get(JobLane.Work)!.qualifiedName}:`;
  const subjectKey = (subject: string) => `${keyPrefix}subject:${subject}`;
  const outbox = createJobOutbox(database.db);
  const consumers = new Set<QueueConsumer>();
  let closed: Promise<void> | undefined;

  /** Runs Redis commands, turning a failure to reach Redis into a {@link QueueUnavailableError}. */
  async function onRedis<T>(commands: () => Promise<T>): Promise<T> {
    try {
      return await commands();
    } catch (error) {
      throw isRedisUnavailable(error, redis) ? new QueueUnavailableError(error) : error;
    }
  }

  async function addToRedis(job: NewJob): Promise<EnqueueResult> {
    // Indexed before it is added: a member whose job never came is dropped by the next cancel.
    if (job.subject) await redis.sadd(subjectKey(job.subject), job.id);
    const added = await queueOf(job.name).add(
      job.name,
      { payload: job.payload, subject: job.subject },
      {
        jobId: job.id,
        attempts: job.maxAttempts,
        backoff: { type: BACKOFF_TYPE },
        delay: job.delayMs > 0 ? job.delayMs : undefined,
        deduplication: job.dedupeKey ? { id: job.dedupeKey } : undefined,
        removeOnComplete: { age: KEEP_COMPLETED_SECONDS },
        removeOnFail: { count: KEEP_FAILED },
      },
    );
    const id = added.id ?? job.id;
    if (id !== job.id && job.subject) await redis.srem(subjectKey(job.subject), job.id);
    return { id, deduplicated: id !== job.id };
  }

  async function relay(row: JobOutboxRow): Promise<void> {
    await addToRedis({
      id: row.id,
      name: row.name,
      payload: JSON.parse(row.payload),
      subject: row.subject,
      dedupeKey: row.dedupe_key,
      maxAttempts: row.max_attempts,
      delayMs: 0,
    });
    await outbox.remove(row.id);
  }

  /** Hands every committed, due outbox row to Redis. */
  async function relayDue(): Promise<void> {
    for (;;) {
      const rows = await outbox.due(RELAY_BATCH);
      for (const row of rows) await relay(row);
      if (rows.length < RELAY_BATCH) return;
    }
  }

  // The relay that keeps the outbox moving: it picks up rows whose process died between commit and relay, rows
  // whose hold ran out, and rows written while Redis was away. Every process with a queue runs it.
  let relaying: Promise<void> | undefined;
  let relayFailing = false;
  const relayNow = () => {
    relaying ??= relayDue()
      .then(() => {
        if (relayFailing) logger.info({}, 'job queue: outbox relay works again');
        relayFailing = false;
      })
      .catch((error: unknown) => {
        if (!relayFailing) logger.warn({ err: error }, 'job queue: outbox relay failed; retrying');
        relayFailing = true;
      })
      .finally(() => (relaying = undefined));
    return relaying;
  };
  const relayTimer = setInterval(relayNow, settings.pollMs);
  void relayNow();

  /** Takes the dedupe key for a job that goes back to waiting; false when a queued copy holds it. */
  async function claimDedupeKey(job: BullJob<StoredJob>): Promise<boolean> {
    const prefix = `${job.queueQualifiedName}:`;
    const taken = await redis.eval(
      CLAIM_DEDUPE_KEY,
      1,
      `${prefix}de:${job.deduplicationId}`,
      job.id!,
      prefix,
    );
    return taken === 1;
  }

  async function removeQueued(subject: string): Promise<number> {
    const key = subjectKey(subject);
    let removed = 0;
    for (const id of await redis.smembers(key)) {
      const job = await findJob(id);
      const state = job ? await job.getState() : 'unknown';
      if (state === 'active') continue;
      if (job && state !== 'completed' && state !== 'unknown') {
        try {
          await job.remove();
          removed++;
        } catch (error) {
          // It started in the meantime: running jobs are left alone, and their id stays indexed.
          if (!isRedisUnavailable(error, redis) && (await job.isActive())) continue;
          throw error;
        }
      }
      await redis.srem(key, id);
    }
    return removed;
  }

  return {
    async enqueue(name, payload, enqueueOptions = {}) {
      const { transaction, delayMs = 0 } = enqueueOptions;
      const job: NewJob = {
        id: randomUUID(),
        name,
        payload,
        subject: enqueueOptions.subject ?? null,
        dedupeKey: enqueueOptions.dedupeKey ?? null,
        maxAttempts: enqueueOptions.maxAttempts ?? settings.maxAttempts,
        delayMs,
      };
      if (transaction) {
        // Redis cannot join the transaction: the job waits in the outbox, committed (or not) with the caller's rows.
        return outbox.add({ ...job, runAt: new Date(Date.now() + delayMs) }, transaction);
      }
      return onRedis(() => addToRedis(job));
    },

    async ping() {
      await onRedis(() => redis.ping());
    },

    async promote(id) {
      if (await outbox.makeDue(id)) {
        const row = await outbox.get(id);
        if (!row) return;
        try {
          await relay(row);
        } catch (error) {
          // The row is due now: the relay hands it over once Redis answers again.
          if (!isRedisUnavailable(error, redis)) throw error;
          logger.warn({ err: error, job_id: id }, 'job queue: Redis unavailable; the job is relayed later');
        }
        return;
      }
      await onRedis(async () => {
        const job = await findJob(id);
        if (!job || !(await job.isDelayed())) return;
        // It may have become due between the two reads; then there is nothing to promote.
        await job.promote().catch(async (error: unknown) => {
          if (await job.isDelayed()) throw error;
        });
      });
    },

    async hasLiveJob(subject, name) {
      // The outbox first: a relay adds the job to Redis before it deletes the row, so one of the two always shows
      // a job that is on its way.
      if (await outbox.holds(subject, name)) return true;
      return onRedis(async () => {
        for (const id of await redis.smembers(subjectKey(subject))) {
          const job = await queueOf(name).getJob(id);
          if (job?.name === name && LIVE_STATES.has(await job.getState())) return true;
        }
        return false;
      });
    },

    async cancelQueued(subject, cancelOptions = {}) {
      // The outbox rows go with the caller's transaction; jobs already in Redis are removed at once, and stay
      // removed if that transaction then rolls back.
      const fromOutbox = await outbox.removeSubject(subject, cancelOptions.transaction);
      const fromRedis = await onRedis(() => removeQueued(subject));
      return fromOutbox + fromRedis;
    },

    startConsumer(handlers: JobHandlers, consumerOptions): QueueConsumer {
      for (const name of Object.values(JobName)) {
        if (!handlers[name]) throw new Error(`No handler for job "${name}"`);
      }
      const running = new Map<string, { controller: AbortController; lockLost: boolean }>();
      let stopping = false;

      async function handBack(job: BullJob<StoredJob>, token: string | undefined): Promise<void> {
        // A copy queued meanwhile already covers this work: this job ends here instead of waiting beside it.
        if (job.deduplicationId && !(await claimDedupeKey(job))) return;
        // Back to waiting without counting the attempt (moveToWait leaves attemptsMade and the stall count as
        // they were), for another worker or the next start; WaitingError tells BullMQ the move is done.
        await job.moveToWait(token);
        throw new WaitingError();
      }

      async function runJob(
        job: BullJob<StoredJob>,
        token: string | undefined,
        entry: { controller: AbortController; lockLost: boolean },
      ): Promise<void> {
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
          if (signal.aborted) return handBack(job, token);
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
            await runJob(job, token, entry);
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
              4 **
                (attemptsMade - 1 + ((job as { stalledCounter?: number } | undefined)?.stalledCounter ?? 0)),
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
        if (job.data.subject) void redis.srem(subjectKey(job.data.subject), job.id!).catch(() => {});
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
            consumers.delete(consumer);
          })();
          return stopped;
        },
      };
      consumers.add(consumer);
      return consumer;
    },

    close() {
      closed ??= (async () => {
        clearInterval(relayTimer);
        await Promise.all([...consumers].map((consumer) => consumer.stop()));
        await relaying;
        await Promise.all([...queues.values()].map((laneQueue) => laneQueue.close()));
        redis.disconnect();
      })();
      return closed;
    },
  };
}
