import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DeferJobError, JobLane, JobName, type Job } from '../../src/jobs/job-types.ts';
import type { JobQueue, QueueConsumer } from '../../src/jobs/queue.ts';
import { testDialects } from '../helpers/databases.ts';
import type { QueueImplementation, QueueStore } from './queue-contract.ts';
import { gate, handlers, recordingLogger, waitFor } from './queue-test-kit.ts';

/** What every queue promises about lanes and deferred jobs, run on each dialect against one implementation. */
export function laneContract(implementation: QueueImplementation): void {
  for (const dialect of testDialects()) {
    void describe(`${implementation.name} job lanes (${dialect})`, { skip: implementation.skip }, () => {
      let store: QueueStore;
      let workers: QueueConsumer[];
      beforeEach(async () => {
        workers = [];
        store = await implementation.createStore(dialect, recordingLogger());
      });
      afterEach(async () => {
        await Promise.all(workers.map((worker) => worker.stop()));
        await store.dispose();
      });
      const work = (queue: JobQueue, run: (job: Job) => Promise<void>, lane?: JobLane) => {
        const worker = queue.startConsumer(handlers(run), { concurrency: 1, lane });
        workers.push(worker);
        return worker;
      };

      void it('gives each lane its own consumer: a busy one holds up nothing in the other', async () => {
        const queue = await store.open();
        const release = gate();
        const ran: string[] = [];
        const record = (lane: string) => async (job: Job) => {
          ran.push(`${lane}:${job.name}`);
          if ((job.payload as { model_id?: string }).model_id === 'slow') await release.promise;
        };
        // The default lane is the work lane: deliveries are never its business.
        work(queue, record('work'));
        work(queue, record('webhooks'), JobLane.Webhooks);
        await queue.enqueue(JobName.ConvertModel, { model_id: 'slow' });
        await waitFor('the conversion runs', () => ran.length === 1);
        await queue.enqueue(JobName.DeliverWebhook, { delivery_id: 1 });
        await queue.enqueue(JobName.DeliverWebhook, { delivery_id: 2 });
        await waitFor('both deliveries ran beside the busy conversion', () => ran.length === 3);
        release.open();
        await queue.enqueue(JobName.RenderThumbnail, { model_id: 'm', model_url: 'u' });
        await waitFor('the thumbnail ran', () => ran.length === 4);
        assert.deepEqual(ran, [
          'work:convert-model',
          'webhooks:deliver-webhook',
          'webhooks:deliver-webhook',
          'work:render-thumbnail',
        ]);
      });

      void it('puts a deferred job back for its delay without using an attempt', async () => {
        const queue = await store.open();
        const runs: { at: number; attempt: number }[] = [];
        let failed = 0;
        const worker = queue.startConsumer(
          handlers(
            async (job) => {
              runs.push({ at: Date.now(), attempt: job.attempt });
              if (runs.length < 4) throw new DeferJobError('the receiver is busy', 150);
            },
            async () => void failed++,
          ),
          { concurrency: 1, lane: JobLane.Webhooks },
        );
        workers.push(worker);
        await queue.enqueue(JobName.DeliverWebhook, { delivery_id: 7 }, { maxAttempts: 1 });
        await waitFor('the fourth run', () => runs.length === 4);
        assert.deepEqual(
          runs.map((run) => run.attempt),
          [1, 1, 1, 1],
          'every run is the first attempt',
        );
        for (let n = 1; n < runs.length; n++) {
          assert.ok(runs[n]!.at - runs[n - 1]!.at >= 140, `run ${n + 1} came after the delay`);
        }
        assert.equal(failed, 0);
      });
    });
  }
}
