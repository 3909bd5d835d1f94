import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { DialectName } from '../../src/db/create-db.ts';
import type { Db } from '../../src/db/database.ts';
import { JobName, PermanentJobError, type Job, type JobHandlers } from '../../src/jobs/job-types.ts';
import type { JobQueue, QueueConsumer } from '../../src/jobs/queue.ts';
import { testDialects } from '../helpers/databases.ts';
import {
  gate,
  handlers,
  recordingLogger,
  sleep,
  untilAborted,
  waitFor,
  type QueueLogger,
} from './queue-test-kit.ts';

/** Where a job stands, as its queue's store tells it. */
export type HeldState = 'queued' | 'running' | 'failed';

/** One test's queue store (a database, a Redis prefix) and the views of it a test needs. */
export interface QueueStore {
  /** A queue on the store; each call is what another process sees. Closed by {@link dispose}. */
  open(): Promise<JobQueue>;
  /** The database the queue's transactional writes go to. */
  db: Db;
  /** The jobs the store still holds (queued, running or failed). */
  held(): Promise<{ id: string; state: HeldState }[]>;
  /** One held job, undefined once it completed or was removed. */
  job(id: string): Promise<{ state: HeldState; lastError: string | null } | undefined>;
  /** Closes every queue opened and removes the store. */
  dispose(): Promise<void>;
}

/** A queue implementation under the contract. */
export interface QueueImplementation {
  name: string;
  /** An empty store on a fresh database of the dialect; its queues log to `logger` and use the FAST tuning. */
  createStore(dialect: DialectName, logger: QueueLogger): Promise<QueueStore>;
  /** node:test's `skip` option for the contract's suites, when the implementation needs a server that is missing. */
  skip?: string | false;
}

/** What every {@link JobQueue} promises, run on each dialect against one implementation. */
export function queueContract(implementation: QueueImplementation): void {
  const suite = { skip: implementation.skip };
  for (const dialect of testDialects()) {
    void describe(`${implementation.name} job queue contract (${dialect})`, suite, () => {
      let store: QueueStore | undefined;
      let logger: ReturnType<typeof recordingLogger>;
      // Everything a test started, stopped afterwards even when it fails.
      let workers: QueueConsumer[];

      beforeEach(async () => {
        logger = recordingLogger();
        workers = [];
        store = await implementation.createStore(dialect, logger);
      });
      // The store of the test under way; beforeEach has opened it.
      const current = () => store!;

      afterEach(async () => {
        await Promise.all(workers.map((worker) => worker.stop()));
        await store?.dispose();
        store = undefined;
      });

      function work(queue: JobQueue, jobHandlers: JobHandlers, concurrency = 1): QueueConsumer {
        const worker = queue.startConsumer(jobHandlers, { concurrency });
        workers.push(worker);
        return worker;
      }

      const stateOf = async (id: string) => (await current().job(id))?.state;
      const nothingHeld = async () => (await current().held()).length === 0;

      void it('runs a job once with its payload and then holds it no more', async () => {
        const queue = await current().open();
        const seen: Job[] = [];
        const { id, deduplicated } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
        assert.equal(deduplicated, false);
        assert.equal(await stateOf(id), 'queued');

        work(
          queue,
          handlers(async (job) => void seen.push(job)),
        );
        await waitFor('the job ran', () => seen.length === 1);
        await waitFor('it is no longer held', nothingHeld);
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
        const queue = await current().open();
        const seen: string[] = [];
        work(
          queue,
          handlers(async (job) => void seen.push((job.payload as { model_id: string }).model_id)),
        );
        await assert.rejects(
          current()
            .db.transaction()
            .execute(async (trx) => {
              await queue.enqueue(JobName.ConvertModel, { model_id: 'rolled-back' }, { transaction: trx });
              throw new Error('the caller failed after enqueueing');
            }),
          /the caller failed/,
        );
        assert.deepEqual(await current().held(), [], 'the job went with the rolled-back transaction');

        const { id } = await current()
          .db.transaction()
          .execute((trx) =>
            queue.enqueue(JobName.ConvertModel, { model_id: 'held' }, { transaction: trx, delayMs: 60_000 }),
          );
        await sleep(200);
        assert.deepEqual(seen, [], 'a held job waits for its delay');
        assert.equal(await stateOf(id), 'queued');
        await queue.promote(id);
        await waitFor('the promoted job ran', () => seen.length === 1);
        assert.deepEqual(seen, ['held']);
      });

      void it('runs a job written in a committed transaction without a promote', async () => {
        const queue = await current().open();
        const seen: string[] = [];
        work(
          queue,
          handlers(async (job) => void seen.push((job.payload as { model_id: string }).model_id)),
        );
        await current()
          .db.transaction()
          .execute((trx) => queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, { transaction: trx }));
        await waitFor('the job ran', () => seen.length === 1);
        assert.deepEqual(seen, ['m1']);
      });

      void it('retries a failing job with growing back-off, keeping the last error meanwhile', async () => {
        const queue = await current().open();
        const starts: number[] = [];
        const failures: number[] = [];
        const errorsSeen: (string | null | undefined)[] = [];
        const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
        work(
          queue,
          handlers(async (job) => {
            starts.push(Date.now());
            if (job.attempt > 1) errorsSeen.push((await current().job(id))?.lastError);
            if (job.attempt < 3) {
              failures.push(Date.now());
              throw new Error(`boom ${job.attempt}`);
            }
          }),
        );
        await waitFor(
          'the third attempt succeeded',
          async () => starts.length === 3 && (await nothingHeld()),
        );
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
        assert.deepEqual(errorsSeen, ['boom 1', 'boom 2']);
      });

      void it('fails a job for good after its attempts, keeping the error and telling the failure handler once', async () => {
        const queue = await current().open();
        let attempts = 0;
        const told: { job: Job; error: Error }[] = [];
        const { id } = await queue.enqueue(JobName.RenderThumbnail, {
          model_id: 'm1',
          model_url: '/f/m1.glb',
        });
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
        await waitFor('the job failed', async () => (await stateOf(id)) === 'failed');
        await sleep(300);
        assert.equal(attempts, 3);
        assert.equal(told.length, 1);
        assert.equal(told[0].error.message, 'broken 3');
        assert.equal(told[0].job.attempt, 3);
        assert.deepEqual(told[0].job.payload, { model_id: 'm1', model_url: '/f/m1.glb' });
        assert.deepEqual(await current().job(id), { state: 'failed', lastError: 'broken 3' });
      });

      void it("tells a subject's job live while queued, ended once failed for good, and none when it holds none", async () => {
        const queue = await current().open();
        const state = (name: JobName = JobName.RenderThumbnail) => queue.jobState('s1', name);
        assert.equal(await state(), 'none');
        await queue.enqueue(
          JobName.RenderThumbnail,
          { model_id: 's1', model_url: '/f/s1.glb' },
          { subject: 's1', maxAttempts: 1 },
        );
        assert.equal(await state(), 'live');
        assert.equal(await state(JobName.ConvertModel), 'none', 'a job of another name is not this one');
        work(
          queue,
          handlers(
            async () => {
              throw new Error('broken');
            },
            async () => {},
          ),
        );
        await waitFor('the job failed for good', async () => (await state()) === 'ended');
      });

      void it('retries a failure handler that throws (its database away) until it records the failure', async () => {
        const queue = await current().open();
        let tries = 0;
        const recorded: string[] = [];
        const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, { maxAttempts: 1 });
        work(
          queue,
          handlers(
            async () => {
              throw new PermanentJobError('unreadable');
            },
            async (_job, error) => {
              if (++tries < 4) throw new Error('database unavailable');
              recorded.push(error.message);
            },
          ),
        );
        await waitFor('the failure was recorded', () => recorded.length === 1);
        await waitFor('the job failed', async () => (await stateOf(id)) === 'failed');
        await sleep(200);
        assert.equal(tries, 4, 'three failed tries, then one that worked, and no more');
        assert.deepEqual(recorded, ['unreadable']);
        assert.ok(
          logger.lines.includes('warn: job queue: failure handler failed; retrying'),
          logger.lines.join('\n'),
        );
        assert.ok(!logger.lines.includes('error: job queue: failure handler failed'), 'it did not give up');
      });

      void it('gives up retrying a failure handler once its bound has passed, and logs it', async () => {
        const queue = await current().open();
        let tries = 0;
        const started = Date.now();
        const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, { maxAttempts: 1 });
        work(
          queue,
          handlers(
            async () => {
              throw new PermanentJobError('unreadable');
            },
            async () => {
              tries++;
              throw new Error('database unavailable');
            },
          ),
        );
        await waitFor(
          'the queue gave up',
          () => logger.lines.includes('error: job queue: failure handler failed'),
          10_000,
        );
        const tookMs = Date.now() - started;
        await waitFor('the job failed', async () => (await stateOf(id)) === 'failed');
        const triesThen = tries;
        await sleep(300);
        assert.equal(tries, triesThen, 'no try after giving up');
        // Waits of 20, 40, 80, 80… ms within the 1 s bound: more than a handful of tries, and not many more.
        assert.ok(tries >= 8 && tries <= 16, `${tries} tries`);
        assert.ok(tookMs >= 900 && tookMs < 5_000, `gave up after ${tookMs} ms`);
      });

      void it('honours a smaller max_attempts given at enqueue', async () => {
        const queue = await current().open();
        let attempts = 0;
        const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, { maxAttempts: 1 });
        work(
          queue,
          handlers(async () => {
            attempts++;
            throw new Error('nope');
          }),
        );
        await waitFor('the job failed', async () => (await stateOf(id)) === 'failed');
        await sleep(150);
        assert.equal(attempts, 1);
      });

      void it('fails a job at once on a PermanentJobError', async () => {
        const queue = await current().open();
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
        await waitFor('the job failed', async () => (await stateOf(id)) === 'failed');
        await sleep(200);
        assert.equal(attempts, 1);
        assert.ok(told[0] instanceof PermanentJobError);
        assert.deepEqual(await current().job(id), { state: 'failed', lastError: 'corrupt upload' });
      });

      void it('deduplicates while a job is queued, and takes a new one once it has started', async () => {
        const queue = await current().open();
        const key = (model: string) => ({ dedupeKey: `convert:${model}` });
        const first = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, key('m1'));
        const again = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, key('m1'));
        assert.deepEqual(again, { id: first.id, deduplicated: true });
        const other = await queue.enqueue(JobName.ConvertModel, { model_id: 'm2' }, key('m2'));
        assert.equal(other.deduplicated, false);
        assert.notEqual(other.id, first.id);
        assert.equal((await current().held()).length, 2);

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
        const later = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, key('m1'));
        assert.equal(later.deduplicated, false);
        assert.notEqual(later.id, first.id);
        release.open();
        await waitFor('every job ran', nothingHeld);
        assert.deepEqual([...ran].sort(), [first.id, other.id, later.id].sort());
      });

      void it('deduplicates a job written in a transaction against one waiting there', async () => {
        const queue = await current().open();
        const { first, again } = await current()
          .db.transaction()
          .execute(async (trx) => {
            const options = { dedupeKey: 'convert:m1', transaction: trx, delayMs: 60_000 };
            return {
              first: await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, options),
              again: await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' }, options),
            };
          });
        assert.deepEqual(again, { id: first.id, deduplicated: true });
        assert.deepEqual(await current().held(), [{ id: first.id, state: 'queued' }]);
      });

      void it('retries a deduplicated job that failed while a copy of it was queued, running the work once more', async () => {
        const queue = await current().open();
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
        // The failed attempt would go back to the queue beside the copy; the one queued job covers both.
        release.open();
        await waitFor('no job is left', nothingHeld);
        await sleep(200);
        assert.deepEqual(ran, [first.id, copy.id]);
        assert.deepEqual(
          logger.lines.filter((line) => line.startsWith('error')),
          [],
        );
      });

      void it('cancels the queued jobs of one subject only, leaving running jobs alone', async () => {
        const queue = await current().open();
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
        const held = await current()
          .db.transaction()
          .execute((trx) =>
            queue.enqueue(
              JobName.ConvertModel,
              { model_id: 'a' },
              { subject: 'a', transaction: trx, delayMs: 60_000 },
            ),
          );
        const b = await queue.enqueue(JobName.ConvertModel, { model_id: 'b' }, { subject: 'b' });
        const none = await queue.enqueue(JobName.ConvertModel, { model_id: 'c' });

        assert.equal(await queue.cancelQueued('a'), 3);
        assert.equal(await queue.cancelQueued('nobody'), 0);
        const byId = (left: { id: string; state: HeldState }[]) =>
          [...left].sort((x, y) => x.id.localeCompare(y.id));
        assert.deepEqual(
          byId(await current().held()),
          byId([
            { id: running.id, state: 'running' },
            { id: b.id, state: 'queued' },
            { id: none.id, state: 'queued' },
          ]),
        );
        await queue.promote(held.id);
        release.open();
        await waitFor('the rest ran', nothingHeld);
        await sleep(100);
        assert.deepEqual(ran, [running.id, b.id, none.id]);
        assert.ok(![a1.id, a2.id, held.id].some((id) => ran.includes(id)));
      });

      void it("cancels in the caller's transaction: a rolled-back cancel keeps a job still held back", async () => {
        const queue = await current().open();
        const { id } = await current()
          .db.transaction()
          .execute((trx) =>
            queue.enqueue(
              JobName.ConvertModel,
              { model_id: 'a' },
              { subject: 'a', transaction: trx, delayMs: 60_000 },
            ),
          );
        await assert.rejects(
          current()
            .db.transaction()
            .execute(async (trx) => {
              assert.equal(await queue.cancelQueued('a', { transaction: trx }), 1);
              throw new Error('the delete failed');
            }),
          /the delete failed/,
        );
        assert.equal(await stateOf(id), 'queued');
        await current()
          .db.transaction()
          .execute((trx) => queue.cancelQueued('a', { transaction: trx }));
        assert.deepEqual(await current().held(), []);
      });

      void it('hands a running job back on stop without counting the attempt, and another worker completes it', async () => {
        const queue = await current().open();
        const { id } = await queue.enqueue(JobName.ConvertModel, { model_id: 'm1' });
        let started = false;
        let aborted = false;
        const firstWorker = work(
          queue,
          handlers(async (_job, signal) => {
            started = true;
            try {
              await untilAborted(signal);
            } finally {
              // Read after the wait: a signal aborted before the handler ran fires no event.
              aborted = signal.aborted;
            }
          }),
        );
        // Running in the queue's records, and in the handler: a stop between the two hands back a job never begun.
        await waitFor('the job is running', async () => started && (await stateOf(id)) === 'running');
        await firstWorker.stop();
        assert.equal(aborted, true);
        assert.equal(await stateOf(id), 'queued');

        // The stopped worker claims nothing more.
        await sleep(100);
        assert.equal(await stateOf(id), 'queued');

        const seen: Job[] = [];
        work(
          await current().open(),
          handlers(async (job) => void seen.push(job)),
        );
        await waitFor(
          'the second worker completed it',
          async () => seen.length === 1 && (await nothingHeld()),
        );
        assert.equal(seen[0].attempt, 1);
      });

      void it('stops at once while idle and while claiming', async () => {
        const queue = await current().open();
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
            (await current().held()).filter((job) => job.state !== 'queued'),
            [],
            `round ${round}: nothing stays claimed by a stopped worker`,
          );
        }
        assert.deepEqual(
          logger.lines.filter((line) => line.startsWith('error')),
          [],
        );
      });

      void it('keeps the lease of a long job alive', async () => {
        const queue = await current().open();
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
          await current().open(),
          handlers(async () => void ranBy.push('second')),
        );
        // Three leases long: without renewal the second worker would take the job over.
        await sleep(900);
        release.open();
        await waitFor('the job is done', async () => !(await current().job(id)));
        assert.deepEqual(ranBy, ['first']);
      });

      void it('never runs a job twice when two workers share the store', async () => {
        const first = await current().open();
        const second = await current().open();
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
        await waitFor('every job ran', nothingHeld, 15_000);
        await sleep(200);
        assert.deepEqual(new Set(runs.keys()), ids);
        const twice = [...runs].filter(([, by]) => by.length !== 1);
        assert.deepEqual(twice, [], 'each job ran exactly once');
        const byWorker = [...runs.values()].flat();
        assert.ok(byWorker.includes('first') && byWorker.includes('second'), 'both workers took part');
      });

      void it('keeps queued jobs across a new queue on the same store', async () => {
        const before = await current().open();
        await before.enqueue(JobName.ConvertModel, { model_id: 'm1' });
        await before.enqueue(
          JobName.RenderThumbnail,
          { model_id: 'm2', model_url: '/m2.glb' },
          { subject: 'm2' },
        );
        await before.close();

        const seen: { name: string; payload: unknown }[] = [];
        work(
          await current().open(),
          handlers(async (job) => void seen.push({ name: job.name, payload: job.payload })),
        );
        await waitFor('both jobs ran', async () => seen.length === 2 && (await nothingHeld()));
        assert.deepEqual(seen, [
          { name: JobName.ConvertModel, payload: { model_id: 'm1' } },
          { name: JobName.RenderThumbnail, payload: { model_id: 'm2', model_url: '/m2.glb' } },
        ]);
      });

      void it('refuses to start a worker without a handler for every job name', async () => {
        const queue = await current().open();
        const run = async () => {};
        const partial = { [JobName.ConvertModel]: { run, failed: run } } as unknown as JobHandlers;
        assert.throws(() => queue.startConsumer(partial, { concurrency: 1 }), /render-thumbnail/);
      });
    });
  }
}
