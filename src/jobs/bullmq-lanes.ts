// The jobs of the BullMQ queue as Redis holds them: one BullMQ queue per lane, an index of job ids per subject so
// a cancel finds them, and the dedupe key a job takes back when it goes back to waiting.
import { Queue, type Job as BullJob } from 'bullmq';
import type { Redis } from 'ioredis';
import type { OutboxJob } from './job-outbox.ts';
import { BULLMQ_LANE_QUEUES, type BullmqQueueOptions, type StoredJob } from './bullmq-settings.ts';
import { JOB_LANE, JobLane, type JobName } from './job-types.ts';
import type { EnqueueResult } from './queue.ts';
import { isRedisUnavailable } from './redis-connection.ts';

const BACKOFF_TYPE = 'times-four';
// Completed job ids stay known this long, so relaying an outbox row a second time (a relay that died between adding
// the job and deleting the row) finds the job instead of running it again.
const KEEP_COMPLETED_SECONDS = 3_600;
// Failed jobs are kept for inspection, the oldest dropped beyond this many.
const KEEP_FAILED = 10_000;

/** A job on its way into Redis, from an enqueue or from the outbox: held back by a delay, not until a time. */
export type NewJob = Omit<OutboxJob, 'runAt'> & { delayMs: number };

// Takes a job's dedupe key for it unless another job that still exists holds it (a queued copy): 1 taken, 0 not.
const CLAIM_DEDUPE_KEY = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] and redis.call('EXISTS', ARGV[2] .. holder) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[1])
return 1`;

/** The lanes' queues and the operations on the jobs they hold. */
export interface BullmqLanes {
  /** The queue of the lane a job of this name runs in. */
  queueOf(name: string): Queue<StoredJob>;
  /** A job by id, in whichever lane's queue it is. */
  findJob(id: string): Promise<BullJob<StoredJob> | undefined>;
  /** The Redis set of the ids of a subject's jobs. */
  subjectKey(subject: string): string;
  /** Adds a job to its lane's queue (or finds the queued copy holding its dedupe key). */
  add(job: NewJob): Promise<EnqueueResult>;
  /** Takes the dedupe key for a job that goes back to waiting; false when a queued copy holds it. */
  claimDedupeKey(job: BullJob<StoredJob>): Promise<boolean>;
  /** Removes a subject's jobs that have not started; answers how many. */
  removeQueued(subject: string): Promise<number>;
  /** Closes every lane's queue (the connection stays the caller's). */
  close(): Promise<void>;
}

/** Opens one BullMQ queue per lane on the `redis` connection and waits until each is ready. */
export async function openBullmqLanes(redis: Redis, settings: BullmqQueueOptions): Promise<BullmqLanes> {
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

  return {
    queueOf,
    findJob,
    subjectKey,

    async add(job) {
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
    },

    async claimDedupeKey(job) {
      const prefix = `${job.queueQualifiedName}:`;
      const taken = await redis.eval(
        CLAIM_DEDUPE_KEY,
        1,
        `${prefix}de:${job.deduplicationId}`,
        job.id!,
        prefix,
      );
      return taken === 1;
    },

    async removeQueued(subject) {
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
    },

    async close() {
      await Promise.all([...queues.values()].map((laneQueue) => laneQueue.close()));
    },
  };
}
