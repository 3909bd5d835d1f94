// A model left converting with no live job used to stay `processing` for good, refusing a reprocess with 409. The
// sweep in every job-running process queues again a model whose job the queue lost (Redis emptied by a restart
// without persistence, or the job row gone), and fails with a message one whose job ended without its outcome
// recorded (the failure handler met a database that stayed away past its retries), so a reprocess can start it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { STRANDED_FAILURE } from '../../src/catalog/conversion/sweep-stranded-models.ts';
import { JobName } from '../../src/jobs/job-types.ts';
import type { catalogApi } from '../helpers/catalog-api.ts';
import { queueSetups, useQueuedApp } from '../helpers/queued-app.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl } from '../helpers/redis.ts';
import { notRendered, type TestApp } from '../helpers/test-app.ts';
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

      /** Makes the queue lose the model's job: Redis emptied as a restart without persistence leaves it, or the row gone. */
      async function loseJobs(id: string): Promise<void> {
        if (queue === 'redis') await removeRedisKeys(testRedisUrl(), queued.redisPrefix!);
        else assert.equal(await testApp.queue.cancelQueued(id), 1, 'its job was queued, and is gone now');
      }

      /** Leaves a model as a dead worker leaves it: `processing`, untouched since `updatedAt`. */
      async function leaveProcessing(id: string, updatedAt = LONG_AGO): Promise<void> {
        await testApp.database.db
          .updateTable('models')
          .set({ status: 'processing', progress: 92, updated_at: updatedAt })
          .where('id', '=', id)
          .execute();
      }

      /** An uploaded model whose job the queue lost, left `processing`. */
      async function stranded(name: string, updatedAt = LONG_AGO): Promise<string> {
        const model = await api.create(`${name}.obj`, OBJ);
        await loseJobs(model.id);
        await leaveProcessing(model.id, updatedAt);
        return model.id;
      }

      const sweeper = () => queued.sweeper();

      const eventCount = async (id: string, type: string) =>
        (
          await testApp.database.db
            .selectFrom('events')
            .select('id')
            .where('type', '=', type)
            .where('model_id', '=', id)
            .execute()
        ).length;

      void it('queues again a model whose job the queue lost, leaves one whose job still waits, and both convert', async () => {
        const lost = await stranded('lost');
        const waiting = await api.create('waiting.obj', OBJ);
        // Untouched for as long, but its job is still queued: a worker will get to it.
        await testApp.database.db
          .updateTable('models')
          .set({ updated_at: LONG_AGO })
          .where('id', '=', waiting.id)
          .execute();
        const updates = await eventCount(lost, 'model.updated');

        assert.deepEqual(await sweeper().sweep(), [lost]);
        const swept = (await api.call('GET', `/${lost}`)).json.data;
        assert.equal(swept.status, 'pending');
        assert.equal(swept.error, null);
        assert.equal(swept.progress, 0);
        assert.equal(
          await testApp.queue.jobState(lost, JobName.ConvertModel),
          'live',
          'its job is queued again',
        );
        assert.equal(await eventCount(lost, 'model.updated'), updates + 1, 'announced');
        assert.equal(await eventCount(lost, 'model.failed'), 0);
        assert.equal((await api.call('GET', `/${waiting.id}`)).json.data.status, 'pending');

        const runner = testApp.startJobRunner(notRendered);
        for (const id of [lost, waiting.id]) {
          const done = await waitForStatus(testApp.app, id, ['completed', 'failed'], 120_000);
          assert.equal(done.status, 'completed', done.error);
        }
        // The next tests strand models of their own, which needs their jobs to wait unclaimed.
        await runner.stop();
      });

      void it('fails a model whose job ended without its outcome recorded, and lets a reprocess start it', async () => {
        // Its stored upload gone before a worker looks: the job fails for good and stays in the queue as failed.
        const model = await api.create('gone.obj', OBJ);
        const folder = path.join(testApp.config.dataDir, 'files', 'models', model.id, 'source');
        for (const name of fs.readdirSync(folder)) fs.rmSync(path.join(folder, name));
        const runner = testApp.startJobRunner(notRendered);
        try {
          const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
          assert.equal(done.status, 'failed');
        } finally {
          await runner.stop();
        }
        // The failure as a database that stayed away would have left it: not recorded.
        await leaveProcessing(model.id);
        assert.equal(await testApp.queue.jobState(model.id, JobName.ConvertModel), 'ended');
        const refused = await api.call('POST', `/${model.id}/reprocess`);
        assert.equal(refused.status, 409, 'stranded, it refuses a reprocess');
        const failures = await eventCount(model.id, 'model.failed');

        assert.deepEqual(await sweeper().sweep(), [model.id]);
        const swept = (await api.call('GET', `/${model.id}`)).json.data;
        assert.equal(swept.status, 'failed');
        assert.equal(swept.error, STRANDED_FAILURE);
        assert.equal(swept.progress, 0);
        assert.equal(await eventCount(model.id, 'model.failed'), failures + 1, 'announced');
        const reprocess = await api.call('POST', `/${model.id}/reprocess`);
        assert.equal(reprocess.status, 200, reprocess.text);
        assert.equal(reprocess.json.data.status, 'pending');
        await api.call('DELETE', `/${model.id}`);
      });

      void it('leaves a model written to within the sweep interval, however it looks', async () => {
        const recent = await stranded('recent', new Date().toISOString());
        assert.deepEqual(await sweeper().sweep(), []);
        assert.equal((await api.call('GET', `/${recent}`)).json.data.status, 'processing');
        // The job runner's own sweep, every second, queues it again once it has been left alone that long.
        const runner = testApp.startJobRunner(notRendered);
        try {
          const done = await waitForStatus(testApp.app, recent, ['completed', 'failed'], 60_000);
          assert.equal(done.status, 'completed', done.error);
        } finally {
          await runner.stop();
        }
      });

      void it('queues a lost model again once when several processes sweep at the same time', async () => {
        const ids: string[] = [];
        for (const name of ['a', 'b', 'c']) ids.push((await api.create(`${name}.obj`, OBJ)).id);
        for (const id of ids) {
          if (queue === 'embedded') await loseJobs(id);
          await leaveProcessing(id);
        }
        if (queue === 'redis') await loseJobs(ids[0]!);
        const results = await Promise.all([sweeper(), sweeper(), sweeper()].map((sweep) => sweep.sweep()));
        assert.deepEqual(
          results.flat().sort(),
          [...ids].sort(),
          'each model queued again by exactly one sweep',
        );
        for (const id of ids) {
          const model = (await api.call('GET', `/${id}`)).json.data;
          assert.equal(model.status, 'pending');
          assert.equal(await testApp.queue.jobState(id, JobName.ConvertModel), 'live');
        }
      });
    },
  );
}
