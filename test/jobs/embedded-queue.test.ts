import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import type { JobRow } from '../../src/db/database.ts';
import { createEmbeddedQueue, type EmbeddedQueueOptions } from '../../src/jobs/embedded-queue.ts';
import { JobName, PermanentJobError, type Job, type JobHandlers } from '../../src/jobs/job-types.ts';
import type { JobQueue, QueueConsumer } from '../../src/jobs/queue.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.ts';

// Small enough that retries, leases and polling play out in well under a second.
const FAST = { pollMs: 20, backoffMs: 50, leaseMs: 300 };

/** A queue logger that keeps what it was told, so tests stay quiet and can check the queue's own account. */
function recordingLogger(): EmbeddedQueueOptions['logger'] & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (_context: unknown, message?: string) =>
    void lines.push(`${level}: ${message}`);
  return { lines, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

type Run = (job: Job, signal: AbortSignal) => Promise<void>;
type Failed = (job: Job, error: Error) => Promise<void>;

/** The same handler for every job name; tests enqueue `convert-model` jobs unless the name matters. */
function handlers(run: Run, failed: Failed = async () => {}): JobHandlers {
  return {
    [JobName.ConvertModel]: { run, failed },
    [JobName.RenderThumbnail]: { run, failed },
    [JobName.ExportModel]: { run, failed },
    [JobName.DeliverWebhook]: { run, failed },
  };
}

/** Polls until `check` holds, failing with `what` after `timeoutMs`. */
async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolve function, for handlers that wait for the test. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Resolves when the signal aborts, rejecting like a real handler whose work was cut short. */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const cut = () => reject(new Error('aborted'));
    if (signal.aborted) cut();
    else signal.addEventListener('abort', cut, { once: true });
  });
}

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

    async function rows(on: DatabaseHandle = handle): Promise<JobRow[]> {
      return on.db.selectFrom('jobs').selectAll().orderBy('id').execute();
    }

    async function row(id: string): Promise<JobRow | undefined> {
      return handle.db.selectFrom('jobs').selectAll().where('id', '=', Number(id)).executeTakeFirst();
    }

    async function openAnother(): Promise<DatabaseHandle> {
      const another = await database.open();
      handles.push(another);
      return another;
    }

    void it('runs a job once with its payload and removes its row', async () => {
      const queue = queueOn(handle);
      const seen: Job[] = [];
      const { id, deduplicated } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      assert.equal(deduplicated, false);
      const queued = await row(id);
      assert.equal(queued?.status, 'queued');
      assert.equal(queued?.attempts, 0);

      work(
        queue,
        handlers(async (job) => void seen.push(job)),
      );
      await waitFor('the job ran', () => seen.length === 1);
      await waitFor('its row is gone', async () => (await rows()).length === 0);
      await sleep(100);
      assert.equal(seen.length, 1);
      assert.deepEqual(seen[0], {
        id,
        name: JobName.ConvertModel,
        payload: { model_id: 'm1' },
        attempt: 1,
        maxAttempts: 3,
      });
    });

    void it("writes a job in the caller's transaction: gone on rollback, held back until promoted", async () => {
      const queue = queueOn(handle);
      const seen: string[] = [];
      work(
        queue,
        handlers(async (job) => void seen.push((job.payload as { model_id: string }).model_id)),
      );
      await assert.rejects(
        handle.db.transaction().execute(async (trx) => {
          await queue.enqueue(JobName.ConvertModel, { model_id: 'rolled-back' }, { transaction: trx });
          throw new Error('the caller failed after enqueueing');
        }),
        /the caller failed/,
      );
      assert.deepEqual(await rows(), [], 'the job went with the rolled-back transaction');

      const { id } = await handle.db
        .transaction()
        .execute((trx) =>
          queue.enqueue(JobName.ConvertModel, { model_id: 'held' }, { transaction: trx, delayMs: 60_000 }),
        );
      await sleep(200);
      assert.deepEqual(seen, [], 'a held job waits for its delay');
      assert.equal((await row(id))?.status, 'queued');
      await queue.promote(id);
      await waitFor('the promoted job ran', () => seen.length === 1);
      assert.deepEqual(seen, ['held']);
    });

    void it('retries a failing job with growing back-off and records the last error', async () => {
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

    void it('fails a job for good after its attempts, keeping the error and telling the failure handler once', async () => {
      const queue = queueOn(handle);
      let attempts = 0;
      const told: { job: Job; error: Error }[] = [];
      const { id } = await queue.enqueue(JobName.RenderThumbnail, { model_id: 'm1', model_url: '/f/m1.glb' });
      work(
        queue,
        handlers(
          async (job) => {
            attempts++;
            throw new Error(`broken ${job.attempt}`);
          },
          async (job, error) => void told.push({ job, error }),
        ),
      );
      await waitFor('the failure handler ran', () => told.length === 1);
      await sleep(300);
      assert.equal(attempts, 3);
      assert.equal(told.length, 1);
      assert.equal(told[0].error.message, 'broken 3');
      assert.equal(told[0].job.attempt, 3);
      assert.deepEqual(told[0].job.payload, { model_id: 'm1', model_url: '/f/m1.glb' });
      const failed = await row(id);
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.attempts, 3);
      assert.equal(failed?.last_error, 'broken 3');
      assert.equal(failed?.locked_by, null);
    });

    void it('honours a smaller max_attempts given at enqueue', async () => {
      const queue = queueOn(handle);
      let attempts = 0;
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, { maxAttempts: 1 });
      work(
        queue,
        handlers(async () => {
          attempts++;
          throw new Error('nope');
        }),
      );
      await waitFor('the job failed', async () => (await row(id))?.status === 'failed');
      await sleep(150);
      assert.equal(attempts, 1);
    });

    void it('fails a job at once on a PermanentJobError', async () => {
      const queue = queueOn(handle);
      let attempts = 0;
      const told: Error[] = [];
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      work(
        queue,
        handlers(
          async () => {
            attempts++;
            throw new PermanentJobError('corrupt upload');
          },
          async (_job, error) => void told.push(error),
        ),
      );
      await waitFor('the failure handler ran', () => told.length === 1);
      await sleep(200);
      assert.equal(attempts, 1);
      assert.ok(told[0] instanceof PermanentJobError);
      const failed = await row(id);
      assert.equal(failed?.status, 'failed');
      assert.equal(failed?.attempts, 1);
      assert.equal(failed?.last_error, 'corrupt upload');
    });

    void it('deduplicates while a job is queued, and takes a new one once it has started', async () => {
      const queue = queueOn(handle);
      const first = await queue.enqueue(
        JobName.ConvertModel,
        { model_id: 'm1' },
        { dedupeKey: 'convert:m1' },
      );
      const again = await queue.enqueue(
        JobName.ConvertModel,
        { model_id: 'm1' },
        { dedupeKey: 'convert:m1' },
      );
      assert.deepEqual(again, { id: first.id, deduplicated: true });
      const other = await queue.enqueue(
        JobName.ConvertModel,
        { model_id: 'm2' },
        { dedupeKey: 'convert:m2' },
      );
      assert.equal(other.deduplicated, false);
      assert.notEqual(other.id, first.id);
      assert.equal((await rows()).length, 2);

      const release = gate();
      const ran: string[] = [];
      work(
        queue,
        handlers(async (job) => {
          ran.push(job.id);
          await release.promise;
        }),
      );
      await waitFor('the first job started', () => ran.includes(first.id));
      const later = await queue.enqueue(
        JobName.ConvertModel,
        { model_id: 'm1' },
        { dedupeKey: 'convert:m1' },
      );
      assert.equal(later.deduplicated, false);
      assert.notEqual(later.id, first.id);
      release.open();
      await waitFor('every job ran', async () => (await rows()).length === 0);
      assert.deepEqual([...ran].sort(), [first.id, other.id, later.id].sort());
    });

    void it('retries a deduplicated job that failed while a copy of it was queued, running the work once more', async () => {
      const queue = queueOn(handle);
      const key = { dedupeKey: 'thumbnail:m1' };
      const payload = { model_id: 'm1', model_url: '/f/m1.glb' };
      const first = await queue.enqueue(JobName.RenderThumbnail, payload, key);
      const release = gate();
      const ran: string[] = [];
      work(
        queue,
        handlers(async (job) => {
          ran.push(job.id);
          if (job.id === first.id && job.attempt === 1) {
            await release.promise;
            throw new Error('renderer crashed');
          }
        }),
      );
      await waitFor('the first job started', () => ran.length === 1);
      const copy = await queue.enqueue(JobName.RenderThumbnail, payload, key);
      assert.equal(copy.deduplicated, false);
      // The failed attempt would go back to `queued` beside the copy; the one queued job covers both.
      release.open();
      await waitFor('no job is left', async () => (await rows()).length === 0);
      await sleep(200);
      assert.deepEqual(ran, [first.id, copy.id]);
      assert.deepEqual(
        logger.lines.filter((line) => line.startsWith('error')),
        [],
      );
    });

    void it('cancels the queued jobs of one subject only, leaving running jobs alone', async () => {
      const queue = queueOn(handle);
      const release = gate();
      const ran: string[] = [];
      const running = await queue.enqueue(JobName.ConvertModel, { model_id: 'a' }, { subject: 'a' });
      work(
        queue,
        handlers(async (job) => {
          ran.push(job.id);
          if (job.id === running.id) await release.promise;
        }),
      );
      await waitFor('the first job of a started', () => ran.length === 1);
      const a1 = await queue.enqueue(JobName.ConvertModel, { model_id: 'a' }, { subject: 'a' });
      const a2 = await queue.enqueue(
        JobName.RenderThumbnail,
        { model_id: 'a', model_url: '/a' },
        { subject: 'a' },
      );
      const b = await queue.enqueue(JobName.ConvertModel, { model_id: 'b' }, { subject: 'b' });
      const none = await queue.enqueue(JobName.ConvertModel, { model_id: 'c' });

      assert.equal(await queue.cancelQueued('a'), 2);
      assert.equal(await queue.cancelQueued('nobody'), 0);
      const left = await rows();
      assert.deepEqual(
        left.map((r) => [String(r.id), r.status]),
        [
          [running.id, 'running'],
          [b.id, 'queued'],
          [none.id, 'queued'],
        ],
      );
      release.open();
      await waitFor('the rest ran', async () => (await rows()).length === 0);
      assert.deepEqual(ran, [running.id, b.id, none.id]);
      assert.ok(!ran.includes(a1.id) && !ran.includes(a2.id));
    });

    void it('hands a running job back on stop without counting the attempt, and another worker completes it', async () => {
      const queue = queueOn(handle);
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      let aborted = false;
      const firstWorker = work(
        queue,
        handlers(async (_job, signal) => {
          signal.addEventListener('abort', () => (aborted = true));
          await untilAborted(signal);
        }),
      );
      await waitFor('the job is running', async () => (await row(id))?.status === 'running');
      await firstWorker.stop();
      assert.equal(aborted, true);
      const handedBack = await row(id);
      assert.equal(handedBack?.status, 'queued');
      assert.equal(handedBack?.attempts, 0);
      assert.equal(handedBack?.locked_by, null);
      assert.equal(handedBack?.lease_until, null);

      // The stopped worker claims nothing more.
      await sleep(100);
      assert.equal((await row(id))?.status, 'queued');

      const seen: Job[] = [];
      work(
        queueOn(await openAnother()),
        handlers(async (job) => void seen.push(job)),
      );
      await waitFor('the second worker completed it', async () => seen.length === 1 && !(await row(id)));
      assert.equal(seen[0].attempt, 1);
    });

    void it('stops at once while idle and while claiming', async () => {
      const queue = queueOn(handle);
      const ran: string[] = [];
      const idle = work(
        queue,
        handlers(async (job) => void ran.push(job.id)),
      );
      await sleep(50);
      await idle.stop();
      // An enqueue right before stop() wakes the worker; whatever it claimed must be handed back or finished.
      for (let round = 0; round < 10; round++) {
        const busy = work(
          queue,
          handlers(async (job, signal) => {
            ran.push(job.id);
            await untilAborted(signal);
          }),
        );
        await queue.enqueue(JobName.ConvertModel, { model_id: `m${round}` });
        await sleep(round % 3);
        await busy.stop();
        assert.deepEqual(
          (await rows()).filter((r) => r.status !== 'queued').map((r) => [r.id, r.status]),
          [],
          `round ${round}: nothing stays claimed by a stopped worker`,
        );
      }
      assert.deepEqual(
        logger.lines.filter((line) => line.startsWith('error')),
        [],
      );
    });

    void it('keeps the lease of a long job alive with heartbeats', async () => {
      const queue = queueOn(handle);
      const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      const ranBy: string[] = [];
      const release = gate();
      work(
        queue,
        handlers(async () => {
          ranBy.push('first');
          await release.promise;
        }),
      );
      await waitFor('the job is running', () => ranBy.length === 1);
      work(
        queueOn(await openAnother()),
        handlers(async () => void ranBy.push('second')),
      );
      // Three leases long: without heartbeats the second worker would take the job over.
      await sleep(900);
      release.open();
      await waitFor('the job is done', async () => !(await row(id)));
      assert.deepEqual(ranBy, ['first']);
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

    void it('never runs a job twice when two workers share the database', async () => {
      const first = queueOn(handle);
      const second = queueOn(await openAnother());
      const ids = new Set<string>();
      for (let n = 0; n < 50; n++) {
        ids.add((await first.enqueue(JobName.ConvertModel, { model_id: `m${n}` })).id);
      }
      const runs = new Map<string, string[]>();
      const record = (worker: string) =>
        handlers(async (job) => {
          runs.set(job.id, [...(runs.get(job.id) ?? []), worker]);
          await sleep(5);
        });
      work(first, record('first'), 2);
      work(second, record('second'), 2);
      await waitFor('every job ran', async () => (await rows()).length === 0, 15_000);
      await sleep(200);
      assert.deepEqual(new Set(runs.keys()), ids);
      const twice = [...runs].filter(([, by]) => by.length !== 1);
      assert.deepEqual(twice, [], 'each job ran exactly once');
      const byWorker = [...runs.values()].flat();
      assert.ok(byWorker.includes('first') && byWorker.includes('second'), 'both workers took part');
    });

    void it('keeps queued jobs across a new queue on the same database', async () => {
      const before = await openAnother();
      const queue = queueOn(before);
      await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
      await queue.enqueue(
        JobName.RenderThumbnail,
        { model_id: 'm2', model_url: '/m2.glb' },
        { subject: 'm2' },
      );
      await before.close();

      const seen: { name: string; payload: unknown }[] = [];
      work(
        queueOn(await openAnother()),
        handlers(async (job) => void seen.push({ name: job.name, payload: job.payload })),
      );
      await waitFor('both jobs ran', async () => seen.length === 2 && (await rows()).length === 0);
      assert.deepEqual(seen, [
        { name: JobName.ConvertModel, payload: { model_id: 'm1' } },
        { name: JobName.RenderThumbnail, payload: { model_id: 'm2', model_url: '/m2.glb' } },
      ]);
    });

    void it('refuses to start a worker without a handler for every job name', () => {
      const queue = queueOn(handle);
      const run = async () => {};
      const partial = { [JobName.ConvertModel]: { run, failed: run } } as unknown as JobHandlers;
      assert.throws(() => queue.startConsumer(partial, { concurrency: 1 }), /render-thumbnail/);
    });
  });
}
