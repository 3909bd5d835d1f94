import { randomUUID } from 'node:crypto';
import { Queue, type Job as BullJob } from 'bullmq';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { JobOutboxRow } from '../db/database.ts';
import { createJobOutbox, type OutboxJob } from './job-outbox.ts';
import { startBullmqConsumer } from './bullmq-consumer.ts';
import {
  BULLMQ_LANE_QUEUES,
  BULLMQ_QUEUE_DEFAULTS,
  type BullmqQueueOptions,
  type StoredJob,
} from './bullmq-settings.ts';
import type { JobName } from './job-types.ts';
import { JOB_LANE, JobLane, type JobHandlers } from './job-types.ts';
import type { EnqueueResult, JobQueue, QueueConsumer } from './queue.ts';
import { QueueUnavailableError } from './queue-unavailable.ts';
import { isRedisUnavailable, openRedis, untilReachable } from './redis-connection.ts';

const BACKOFF_TYPE = 'times-four';
// Completed job ids stay known this long, so relaying an outbox row a second time (a relay that died between adding
// the job and deleting the row) finds the job instead of running it again.
const KEEP_COMPLETED_SECONDS = 3_600;
// Failed jobs are kept for inspection, the oldest dropped beyond this many.
const KEEP_FAILED = 10_000;
const RELAY_BATCH = 100;
// States of a job that will still run or is running.
const LIVE_STATES = new Set(['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children', 'active']);

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
      const consumer = startBullmqConsumer(handlers, consumerOptions, {
        settings,
        claimDedupeKey,
        forgetJob: (subject, id) => void redis.srem(subjectKey(subject), id).catch(() => {}),
        onStopped: () => consumers.delete(consumer),
      });
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
