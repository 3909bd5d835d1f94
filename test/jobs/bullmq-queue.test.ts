import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { openBullmqQueue } from '../../src/jobs/bullmq-queue.ts';
import { BULLMQ_QUEUE_NAME, type BullmqQueueOptions } from '../../src/jobs/bullmq-settings.ts';
import { JobName, type Job, type JobHandlers } from '../../src/jobs/job-types.ts';
import type { JobQueue, QueueConsumer } from '../../src/jobs/queue.ts';
import { QueueUnavailableError } from '../../src/jobs/queue-unavailable.ts';
import { RedisUnreachableError } from '../../src/jobs/redis-connection.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { proxyInFront, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { laneContract } from './lane-contract.ts';
import { queueContract, type HeldState, type QueueImplementation } from './queue-contract.ts';
import { FAST, gate, handlers, recordingLogger, sleep, waitFor } from './queue-test-kit.ts';

const BULL_STATES: Record<string, HeldState | undefined> = {
  waiting: 'queued',
  delayed: 'queued',
  prioritized: 'queued',
  paused: 'queued',
  'waiting-children': 'queued',
  active: 'running',
  failed: 'failed',
};

/** A read-only view of the queue's Redis and outbox, for tests to check where jobs stand. */
async function inspectorOn(url: string, prefix: string, handle: DatabaseHandle) {
  const connection = new Redis(url, { maxRetriesPerRequest: 1 });
  const view = new Queue(BULLMQ_QUEUE_NAME, { connection, prefix });
  view.on('error', () => {});
  const outboxRows = () => handle.db.selectFrom('job_outbox').selectAll().execute();
  return {
    async held(): Promise<{ id: string; state: HeldState }[]> {
      const inRedis = await view.getJobs(Object.keys(BULL_STATES) as never);
      const fromRedis = await Promise.all(
        inRedis.map(async (job) => ({ id: job.id!, state: BULL_STATES[await job.getState()]! })),
      );
      const fromOutbox = (await outboxRows()).map((row) => ({ id: row.id, state: 'queued' as const }));
      return [...fromOutbox, ...fromRedis.filter((job) => job.state !== undefined)];
    },
    async job(id: string) {
      if ((await outboxRows()).some((row) => row.id === id))
        return { state: 'queued' as const, lastError: null };
      const job = await view.getJob(id);
      const state = job ? BULL_STATES[await job.getState()] : undefined;
      return state && { state, lastError: job?.failedReason || null };
    },
    async close() {
      await view.close();
      connection.disconnect();
    },
  };
}

const BULLMQ: QueueImplementation = {
  name: 'BullMQ',
  skip: skipWithoutRedis,
  async createStore(dialect, logger) {
    const url = testRedisUrl();
    const prefix = uniqueRedisPrefix('contract');
    const database = await createTestDatabase(dialect);
    const handle = await database.open();
    const handles = [handle];
    const queues: JobQueue[] = [];
    const inspector = await inspectorOn(url, prefix, handle);
    return {
      db: handle.db,
      // Each queue has its own connections to Redis and the database, like another process.
      async open() {
        const on = queues.length === 0 ? handle : await database.open();
        if (on !== handle) handles.push(on);
        const queue = await openBullmqQueue(on, { ...FAST, logger, redisUrl: url, prefix });
        queues.push(queue);
        return queue;
      },
      held: () => inspector.held(),
      job: (id) => inspector.job(id),
      async dispose() {
        await Promise.all(queues.map((queue) => queue.close()));
        await inspector.close();
        await removeRedisKeys(url, prefix);
        await Promise.allSettled(handles.map((open) => open.close()));
        await database.dispose();
      },
    };
  },
};
queueContract(BULLMQ);
laneContract(BULLMQ);

// What only the Redis queue has: its outbox, worker processes that die, and Redis going away.
for (const dialect of testDialects()) {
  void describe(`BullMQ job queue (${dialect})`, { skip: skipWithoutRedis }, () => {
    let url: string;
    let prefix: string;
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let logger: ReturnType<typeof recordingLogger>;
    let queues: JobQueue[];
    let workers: QueueConsumer[];
    let proxies: TcpProxy[];

    beforeEach(async () => {
      url = testRedisUrl();
      prefix = uniqueRedisPrefix('bullmq');
      database = await createTestDatabase(dialect);
      handle = await database.open();
      logger = recordingLogger();
      queues = [];
      workers = [];
      proxies = [];
    });

    afterEach(async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await Promise.all(queues.map((queue) => queue.close()));
      await Promise.all(proxies.map((proxy) => proxy.close()));
      await removeRedisKeys(url, prefix);
      await handle.close();
      await database.dispose();
    });

    async function queueOn(options: Partial<BullmqQueueOptions> = {}): Promise<JobQueue> {
      const queue = await openBullmqQueue(handle, { ...FAST, logger, redisUrl: url, prefix, ...options });
      queues.push(queue);
      return queue;
    }

    function work(queue: JobQueue, jobHandlers: JobHandlers): QueueConsumer {
      const worker = queue.startConsumer(jobHandlers, { concurrency: 1 });
      workers.push(worker);
      return worker;
    }

    async function proxied(): Promise<{ proxy: TcpProxy; url: string }> {
      const inFront = await proxyInFront(url, 6379);
      proxies.push(inFront.proxy);
      return inFront;
    }

    const outbox = () => handle.db.selectFrom('job_outbox').selectAll().execute();

    void it('relays a committed job whose process died before relaying it, from the next queue to start', async () => {
      // A relay period longer than the test: this queue never relays after its first pass, like a process
      // killed right after the commit.
      const dying = await queueOn({ pollMs: 600_000 });
      const { id } = await handle.db
        .transaction()
        .execute((trx) => dying.enqueue(JobName.ConvertModel, { model_id: 'm1' }, { transaction: trx }));
      await sleep(100);
      assert.deepEqual(
        (await outbox()).map((row) => row.id),
        [id],
      );
      await dying.close();

      const seen: Job[] = [];
      work(
        await queueOn(),
        handlers(async (job) => void seen.push(job)),
      );
      await waitFor('the next queue ran the job', () => seen.length === 1);
      assert.equal(seen[0].id, id);
      assert.deepEqual(seen[0].payload, { model_id: 'm1' });
      await waitFor('the outbox is empty', async () => (await outbox()).length === 0);
    });

    void it('gives the job of a SIGKILLed worker process to another worker, counting the lost attempt', async () => {
      const queue = await queueOn();
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      const child = startWorkerProcess(url, prefix, database);
      await child.started;
      child.process.kill('SIGKILL');
      await once(child.process, 'exit');
      const diedAt = Date.now();

      const seen: Job[] = [];
      work(
        queue,
        handlers(async (job) => void seen.push(job)),
      );
      await waitFor('another worker ran the job', () => seen.length === 1, 10_000);
      assert.ok(Date.now() - diedAt >= 150, 'not before the lock could have run out');
      assert.equal(seen[0].id, id);
      assert.equal(seen[0].attempt, 2, 'the lost attempt counts');
    });

    void it('fails a job for good when its last attempt was lost with its worker process', async () => {
      const queue = await queueOn();
      await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, { maxAttempts: 1 });
      const child = startWorkerProcess(url, prefix, database);
      await child.started;
      child.process.kill('SIGKILL');
      await once(child.process, 'exit');

      const told: Error[] = [];
      let reran = false;
      work(
        queue,
        handlers(
          async () => void (reran = true),
          async (_job, error) => void told.push(error),
        ),
      );
      await waitFor('the failure handler ran', () => told.length === 1, 10_000);
      assert.equal(reran, false);
      assert.match(told[0].message, /stopped responding/);
    });

    void it('keeps its jobs in the Redis database the URL names by its index', async () => {
      const own = Number(new URL(url).pathname.slice(1) || 0);
      const other = new URL(url);
      other.pathname = `/${own === 1 ? 2 : 1}`;
      const queue = await queueOn({ redisUrl: other.toString() });
      try {
        await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
        const keysIn = async (at: string) => {
          const redis = new Redis(at, { maxRetriesPerRequest: 1 });
          try {
            return (await redis.keys(`${prefix}:*`)).length;
          } finally {
            redis.disconnect();
          }
        };
        assert.ok((await keysIn(other.toString())) > 0, `the job is in database ${other.pathname}`);
        assert.equal(await keysIn(url), 0, 'and nothing of it in the database TEST_REDIS_URL names');
      } finally {
        await queue.close();
        await removeRedisKeys(other.toString(), prefix);
      }
    });

    void it('refuses to open on an unreachable Redis with a message naming REDIS_URL', async () => {
      const { proxy, url: through } = await proxied();
      await proxy.cut();
      const started = Date.now();
      await assert.rejects(
        openBullmqQueue(handle, { ...FAST, logger, redisUrl: through, prefix, connectTimeoutMs: 500 }),
        (error: unknown) =>
          error instanceof RedisUnreachableError &&
          // The URL as given, database index included when TEST_REDIS_URL names one (redis://host:port/13).
          /^cannot reach Redis at REDIS_URL \(redis:\/\/127\.0\.0\.1:\d+(\/\d*)?\)/.test(error.message) &&
          !error.message.includes('\n'),
      );
      assert.ok(Date.now() - started < 3_000, 'gave up within the connect timeout');
    });

    void it('fails enqueues at once while Redis is away, keeps transactional ones, and carries on when it is back', async () => {
      const { proxy, url: through } = await proxied();
      const queue = await queueOn({ redisUrl: through, connectTimeoutMs: 1_000 });
      const seen: string[] = [];
      const release = gate();
      work(
        queue,
        handlers(async (job) => {
          seen.push((job.payload as { model_id: string }).model_id);
          if ((job.payload as { model_id: string }).model_id === 'before') await release.promise;
        }),
      );
      await queue.enqueue(JobName.ConvertModel, { model_id: 'before' });
      await waitFor('the first job started', () => seen.length === 1);

      await proxy.cut();
      const started = Date.now();
      await assert.rejects(
        queue.enqueue(JobName.ConvertModel, { model_id: 'lost' }),
        (error: unknown) =>
          error instanceof QueueUnavailableError &&
          /job queue unavailable, try again shortly/.test(error.message),
      );
      assert.ok(Date.now() - started < 2_000, `the enqueue failed after ${Date.now() - started} ms`);
      // Written in the caller's transaction, this one waits in the outbox for Redis to come back.
      await handle.db
        .transaction()
        .execute((trx) => queue.enqueue(JobName.ConvertModel, { model_id: 'kept' }, { transaction: trx }));
      release.open();
      await sleep(300);

      await proxy.restore();
      // As a client answered 503 would: try again shortly, until the queue has reconnected.
      await waitFor('an enqueue is accepted again', () =>
        queue.enqueue(JobName.ConvertModel, { model_id: 'after' }).then(
          () => true,
          () => sleep(100).then(() => false),
        ),
      );
      await waitFor(
        'the jobs ran once Redis was back',
        () => seen.includes('kept') && seen.includes('after'),
        15_000,
      );
      assert.ok(!seen.includes('lost'));
      await waitFor('the outbox is empty', async () => (await outbox()).length === 0);
    });
  });
}

/**
 * Starts a worker in its own process on the test's Redis and database; its handler hangs, so the job stays with it
 * until the test kills it.
 */
function startWorkerProcess(url: string, prefix: string, database: TestDatabase) {
  const script = new URL('./bullmq-worker-process.ts', import.meta.url).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, WORKER_REDIS_URL: url, WORKER_PREFIX: prefix, WORKER_DATABASE_URL: database.url },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (chunk.includes('started')) resolve();
    });
    child.once('exit', (code) =>
      reject(new Error(`the worker process exited (${code}) before starting a job`)),
    );
  });
  return { process: child, started };
}
