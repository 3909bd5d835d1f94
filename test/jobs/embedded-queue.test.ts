import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import type { JobRow } from '../../src/db/database.ts';
import { createEmbeddedQueue, type EmbeddedQueueOptions } from '../../src/jobs/embedded-queue.ts';
import { JobName, type Job, type JobHandlers } from '../../src/jobs/job-types.ts';
import type { JobQueue, QueueConsumer } from '../../src/jobs/queue.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.ts';
import { laneContract } from './lane-contract.ts';
import { queueContract, type HeldState, type QueueImplementation } from './queue-contract.ts';
import { FAST, handlers, recordingLogger, sleep, untilAborted, waitFor } from './queue-test-kit.ts';

const EMBEDDED: QueueImplementation = {
  name: 'embedded',
  async createStore(dialect, logger) {
    const database = await createTestDatabase(dialect);
    const handle = await database.open();
    const handles = [handle];
    let opened = 0;
    const rows = () => handle.db.selectFrom('jobs').selectAll().orderBy('id').execute();
    return {
      db: handle.db,
      // The first queue shares the test's connection; every other one opens its own, like another process.
      async open() {
        const on = opened++ === 0 ? handle : await database.open();
        if (on !== handle) handles.push(on);
        return createEmbeddedQueue(on, { ...FAST, logger });
      },
      async held() {
        return (await rows()).map((row) => ({ id: String(row.id), state: row.status as HeldState }));
      },
      async job(id) {
        const row = (await rows()).find((r) => String(r.id) === id);
        return row && { state: row.status as HeldState, lastError: row.last_error };
      },
      async dispose() {
        await Promise.allSettled(handles.map((open) => open.close()));
        await database.dispose();
      },
    };
  },
};
queueContract(EMBEDDED);
laneContract(EMBEDDED);

// What only the embedded queue shows: its rows, leases and heartbeats.
for (const dialect of testDialects()) {
  void describe(`embedded job queue (${dialect})`, () => {
    let database: TestDatabase;
    let handle: DatabaseHandle;
    let logger: ReturnType<typeof recordingLogger>;
    // Everything a test opened, closed afterwards even when it fails.
    let workers: QueueConsumer[];
    let handles: DatabaseHandle[];

    beforeEach(async () => {
      database = await createTestDatabase(dialect);
      handle = await database.open();
      logger = recordingLogger();
      workers = [];
      handles = [handle];
    });

    afterEach(async () => {
      await Promise.all(workers.map((worker) => worker.stop()));
      await Promise.allSettled(handles.map((open) => open.close()));
      await database.dispose();
    });

    function queueOn(on: DatabaseHandle, options: Partial<EmbeddedQueueOptions> = {}): JobQueue {
      return createEmbeddedQueue(on, { ...FAST, logger, ...options });
    }

    function work(queue: JobQueue, jobHandlers: JobHandlers, concurrency = 1): QueueConsumer {
      const worker = queue.startConsumer(jobHandlers, { concurrency });
      workers.push(worker);
      return worker;
    }

    async function row(id: string): Promise<JobRow | undefined> {
      return handle.db.selectFrom('jobs').selectAll().where('id', '=', Number(id)).executeTakeFirst();
    }

    async function openAnother(): Promise<DatabaseHandle> {
      const another = await database.open();
      handles.push(another);
      return another;
    }

    void it('clears the lease of a job handed back on stop', async () => {
      const queue = queueOn(handle);
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      const worker = work(
        queue,
        handlers(async (_job, signal) => untilAborted(signal)),
      );
      await waitFor('the job is running', async () => (await row(id))?.status === 'running');
      await worker.stop();
      const handedBack = await row(id);
      assert.equal(handedBack?.attempts, 0);
      assert.equal(handedBack?.locked_by, null);
      assert.equal(handedBack?.lease_until, null);
    });

    void it('records the attempts, last error and next run of a retried job', async () => {
      const queue = queueOn(handle);
      const starts: number[] = [];
      const failures: number[] = [];
      const duringRetries: JobRow[] = [];
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      work(
        queue,
        handlers(async (job) => {
          starts.push(Date.now());
          if (job.attempt > 1) duringRetries.push((await row(id))!);
          if (job.attempt < 3) {
            failures.push(Date.now());
            throw new Error(`boom ${job.attempt}`);
          }
        }),
      );
      await waitFor('the third attempt succeeded', async () => starts.length === 3 && !(await row(id)));
      await sleep(100);
      assert.equal(starts.length, 3);

      // Back-off: 50 ms before the second attempt, four times that before the third.
      assert.ok(
        starts[1] - failures[0] >= 45,
        `second attempt ${starts[1] - failures[0]} ms after the failure`,
      );
      assert.ok(
        starts[2] - failures[1] >= 195,
        `third attempt ${starts[2] - failures[1]} ms after the failure`,
      );

      const [second, third] = duringRetries;
      assert.equal(second.last_error, 'boom 1');
      assert.equal(second.attempts, 2);
      assert.equal(third.last_error, 'boom 2');
      assert.equal(third.attempts, 3);
      const runAt = (value: JobRow['run_at']) => new Date(value).getTime();
      assert.ok(runAt(second.run_at) >= failures[0] + 45, 'run_at moved past the back-off');
      assert.ok(runAt(third.run_at) - runAt(second.run_at) >= 195, 'the second wait is longer');
    });

    void it('gives a job whose worker stopped heartbeating to another worker once the lease expires', async () => {
      const lost = await openAnother();
      const { id } = await queueOn(handle).enqueue(JobName.ConvertModel, { model_id: 'm1' });
      let firstStarted = false;
      work(
        queueOn(lost),
        // Hangs like a process that froze; it ends only when its worker is stopped after the test.
        handlers(async (_job, signal) => {
          firstStarted = true;
          await untilAborted(signal);
        }),
      );
      await waitFor('the first worker claimed the job', () => firstStarted);
      const claimed = await row(id);
      assert.equal(claimed?.status, 'running');
      // Its process "dies": the database handle goes away, so heartbeats fail and the lease runs out.
      await lost.close();
      const diedAt = Date.now();

      const seen: Job[] = [];
      work(
        queueOn(await openAnother()),
        handlers(async (job) => void seen.push(job)),
      );
      await waitFor('another worker ran the job', async () => seen.length === 1 && !(await row(id)));
      assert.ok(Date.now() - diedAt >= 150, 'not before the lease could have run out');
      assert.equal(seen[0].id, id);
      assert.equal(seen[0].attempt, 2, 'the lost attempt counts');
      assert.ok(logger.lines.includes('warn: job queue: heartbeat failed'), logger.lines.join('\n'));
    });

    void it('aborts a run whose lease another worker has taken over, leaving the job to that worker', async () => {
      const queue = queueOn(handle);
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      let aborted = false;
      let started = false;
      work(
        queue,
        handlers(async (_job, signal) => {
          started = true;
          await untilAborted(signal).catch((error: unknown) => {
            aborted = true;
            throw error;
          });
        }),
      );
      await waitFor('the job is running', () => started);
      // What a second worker's claim does once the lease has run out during a long pause of this one.
      await handle.db.updateTable('jobs').set({ locked_by: 'other-worker', attempts: 2 }).execute();
      await waitFor('the run was aborted', () => aborted, 2_000);
      await sleep(100);
      const taken = await row(id);
      assert.equal(taken?.status, 'running');
      assert.equal(taken?.locked_by, 'other-worker');
      assert.equal(taken?.attempts, 2, 'the new owner keeps its attempt count');
      assert.ok(logger.lines.includes('warn: job queue: lease lost to another worker; stopping'));
    });

    void it('fails a job for good when its last attempt was lost with its worker', async () => {
      const lost = await openAnother();
      const { id } = await queueOn(handle).enqueue(
        JobName.ConvertModel,
        { model_id: 'm1' },
        { maxAttempts: 1 },
      );
      let firstStarted = false;
      work(
        queueOn(lost),
        handlers(async (_job, signal) => {
          firstStarted = true;
          await untilAborted(signal);
        }),
      );
      await waitFor('the first worker claimed the job', () => firstStarted);
      await lost.close();
      const told: Error[] = [];
      let reran = false;
      work(
        queueOn(await openAnother()),
        handlers(
          async () => void (reran = true),
          async (_job, error) => void told.push(error),
        ),
      );
      await waitFor('the failure handler ran', () => told.length === 1);
      assert.equal(reran, false);
      assert.match(told[0].message, /stopped responding/);
      assert.equal((await row(id))?.status, 'failed');
    });
  });
}
