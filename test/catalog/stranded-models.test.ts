// A model whose conversion ended without recording its outcome (the failure handler met a database that stayed
// away past its retries, a job lost with its queue) used to stay `processing` for good, refusing a reprocess with
// 409. The sweep in every job-running process now fails such a model with a message, so a reprocess can start it.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { STRANDED_FAILURE } from '../../src/catalog/conversion/sweep-stranded-models.ts';
import type { catalogApi } from '../helpers/catalog-api.ts';
import { queueSetups, useQueuedApp } from '../helpers/queued-app.ts';
import { skipWithoutRedis } from '../helpers/redis.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const LONG_AGO = '2026-01-01T00:00:00.000Z';

for (const setup of queueSetups()) {
  const { dialect, queue } = setup;
  void describe(
    `models left converting without a job (${dialect}, ${queue} queue)`,
    { skip: queue === 'redis' && skipWithoutRedis },
    () => {
      const queued = useQueuedApp(setup, 'stranded');
      let testApp: TestApp;
      let api: ReturnType<typeof catalogApi>;
      before(() => ({ testApp, api } = queued));

      /** An uploaded model whose job is gone, left as a failure handler that could not write leaves it. */
      async function stranded(name: string, updatedAt = LONG_AGO): Promise<string> {
        const model = await api.create(`${name}.obj`, OBJ);
        assert.equal(await testApp.queue.cancelQueued(model.id), 1, 'its job was queued, and is gone now');
        await testApp.database.db
          .updateTable('models')
          .set({ status: 'processing', progress: 92, updated_at: updatedAt })
          .where('id', '=', model.id)
          .execute();
        return model.id;
      }

      const sweeper = () => queued.sweeper();

      const failedEvents = async (id: string) =>
        (
          await testApp.database.db
            .selectFrom('events')
            .select('id')
            .where('type', '=', 'model.failed')
            .where('model_id', '=', id)
            .execute()
        ).length;

      void it('fails a model whose job is gone, leaves one whose job still waits, and lets a reprocess start it', async () => {
        const lost = await stranded('lost');
        const waiting = await api.create('waiting.obj', OBJ);
        // Untouched for as long, but its job is still queued: a worker will get to it.
        await testApp.database.db
          .updateTable('models')
          .set({ updated_at: LONG_AGO })
          .where('id', '=', waiting.id)
          .execute();
        const refused = await api.call('POST', `/${lost}/reprocess`);
        assert.equal(refused.status, 409, 'stranded, it refuses a reprocess');

        assert.deepEqual(await sweeper().sweep(), [lost]);
        const swept = (await api.call('GET', `/${lost}`)).json.data;
        assert.equal(swept.status, 'failed');
        assert.equal(swept.error, STRANDED_FAILURE);
        assert.equal(swept.progress, 0);
        assert.equal(await failedEvents(lost), 1, 'announced');
        assert.equal((await api.call('GET', `/${waiting.id}`)).json.data.status, 'pending');

        const reprocess = await api.call('POST', `/${lost}/reprocess`);
        assert.equal(reprocess.status, 200, reprocess.text);
        assert.equal(reprocess.json.data.status, 'pending');
        const runner = testApp.startJobRunner();
        for (const id of [lost, waiting.id]) {
          const done = await waitForStatus(testApp.app, id, ['completed', 'failed'], 120_000);
          assert.equal(done.status, 'completed', done.error);
        }
        // The next tests strand models of their own, which needs their jobs to wait unclaimed.
        await runner.stop();
      });

      void it('leaves a model written to within the sweep interval, however it looks', async () => {
        const recent = await stranded('recent', new Date().toISOString());
        assert.deepEqual(await sweeper().sweep(), []);
        assert.equal((await api.call('GET', `/${recent}`)).json.data.status, 'processing');
        // The job runner's own sweep, every second, fails it once it has been left alone that long.
        const runner = testApp.startJobRunner();
        try {
          const failed = await waitForStatus(testApp.app, recent, ['failed'], 15_000);
          assert.equal(failed.error, STRANDED_FAILURE);
        } finally {
          await runner.stop();
        }
      });

      void it('fails a stranded model once when several processes sweep at the same time', async () => {
        const ids = await Promise.all(['a', 'b', 'c'].map((name) => stranded(name)));
        const results = await Promise.all([sweeper(), sweeper(), sweeper()].map((sweep) => sweep.sweep()));
        assert.deepEqual(results.flat().sort(), [...ids].sort(), 'each model failed by exactly one sweep');
        for (const id of ids) {
          const model = (await api.call('GET', `/${id}`)).json.data;
          assert.equal(model.status, 'failed');
          assert.equal(model.error, STRANDED_FAILURE);
          assert.equal(await failedEvents(id), 1, `${id} announced once`);
        }
      });
    },
  );
}
