import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../db/create-db.ts';
import { createJobOutbox } from './job-outbox.ts';
import { startBullmqConsumer } from './bullmq-consumer.ts';
import { openBullmqLanes, type NewJob } from './bullmq-lanes.ts';
import { startOutboxRelay } from './bullmq-relay.ts';
import { BULLMQ_QUEUE_DEFAULTS, type BullmqQueueOptions } from './bullmq-settings.ts';
import type { JobHandlers, JobName } from './job-types.ts';
import type { JobQueue, JobState, QueueConsumer } from './queue.ts';
import { QueueUnavailableError } from './queue-unavailable.ts';
import { isRedisUnavailable, openRedis, untilReachable } from './redis-connection.ts';

// States of a job that will still run or is running.
const LIVE_STATES = new Set(['waiting', 'delayed', 'prioritized', 'paused', 'waiting-children', 'active']);

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
  const lanes = await openBullmqLanes(redis, settings);
  const { queueOf, findJob, subjectKey } = lanes;
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

  /** See {@link JobQueue.jobState}. */
  async function jobState(subject: string, name: JobName): Promise<JobState> {
    // The outbox first: a relay adds the job to Redis before it deletes the row, so one of the two always shows
    // a job that is on its way.
    if (await outbox.holds(subject, name)) return 'live';
    return onRedis(async () => {
      let ended = false;
      // The subject's set keeps the ids of its jobs until they complete; a failed job stays, kept for inspection.
      for (const id of await redis.smembers(subjectKey(subject))) {
        const job = await queueOf(name).getJob(id);
        if (job?.name !== name) continue;
        if (LIVE_STATES.has(await job.getState())) return 'live';
        ended = true;
      }
      return ended ? 'ended' : 'none';
    });
  }

  const relay = startOutboxRelay(outbox, lanes, settings);

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
      return onRedis(() => lanes.add(job));
    },

    async ping() {
      await onRedis(() => redis.ping());
    },

    async promote(id) {
      if (await outbox.makeDue(id)) {
        const row = await outbox.get(id);
        if (!row) return;
        try {
          await relay.relay(row);
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
      return (await jobState(subject, name)) === 'live';
    },

    jobState,

    async cancelQueued(subject, cancelOptions = {}) {
      // The outbox rows go with the caller's transaction; jobs already in Redis are removed at once, and stay
      // removed if that transaction then rolls back.
      const fromOutbox = await outbox.removeSubject(subject, cancelOptions.transaction);
      const fromRedis = await onRedis(() => lanes.removeQueued(subject));
      return fromOutbox + fromRedis;
    },

    startConsumer(handlers: JobHandlers, consumerOptions): QueueConsumer {
      const consumer = startBullmqConsumer(handlers, consumerOptions, {
        settings,
        claimDedupeKey: lanes.claimDedupeKey,
        forgetJob: (subject, id) => void redis.srem(subjectKey(subject), id).catch(() => {}),
        onStopped: () => consumers.delete(consumer),
      });
      consumers.add(consumer);
      return consumer;
    },

    close() {
      closed ??= (async () => {
        // The relay's timer stops first; the pass under way is waited for once the consumers have stopped.
        const relayStopped = relay.stop();
        await Promise.all([...consumers].map((consumer) => consumer.stop()));
        await relayStopped;
        await lanes.close();
        redis.disconnect();
      })();
      return closed;
    },
  };
}
