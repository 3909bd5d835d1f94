// A version's conversion job is its own: deleting a version still waiting cancels its job and no other (the
// model's, another version's), deleting the model cancels its versions' jobs, and a version left converting
// without a job is swept like a model: queued again when the queue lost its job, failed when its job ended unrecorded.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { STRANDED_VERSION_FAILURE } from '../../../src/catalog/conversion/sweep-stranded-models.ts';
import { JobName } from '../../../src/jobs/job-types.ts';
import { versionJobSubject } from '../../../src/catalog/versions/schemas.ts';
import type { catalogApi } from '../../helpers/catalog-api.ts';
import { queueSetups, useQueuedApp } from '../../helpers/queued-app.ts';
import { skipWithoutRedis } from '../../helpers/redis.ts';
import { notRendered, type TestApp } from '../../helpers/test-app.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const LONG_AGO = '2026-01-01T00:00:00.000Z';

for (const setup of queueSetups()) {
  const { dialect, queue } = setup;
  void describe(
    `version jobs (${dialect}, ${queue} queue)`,
    { skip: queue === 'redis' && skipWithoutRedis },
    () => {
      // No job runner (useQueuedApp starts none): every job stays queued, so the tests see which ones a delete removes.
      const queued = useQueuedApp(setup, 'version-jobs');
      let testApp: TestApp;
      let api: ReturnType<typeof catalogApi>;
      before(() => ({ testApp, api } = queued));

      /** A model with versions 2 and 3 posted, each with its conversion queued. */
      async function modelWithVersions(): Promise<string> {
        const id = (await api.create('first.obj', OBJ)).id as string;
        for (const n of [2, 3]) {
          const posted = await api.postForm(
            `/${id}/versions`,
            {},
            { field: 'file', filename: `v${n}.obj`, data: OBJ },
          );
          assert.equal(posted.status, 202, posted.text);
          assert.equal(posted.json.data.version.number, n);
        }
        return id;
      }
      const live = (subject: string) => testApp.queue.hasLiveJob(subject, JobName.ConvertModel);

      void it('cancels the job of a deleted version and no other, and the versions’ jobs with the model', async () => {
        const id = await modelWithVersions();
        assert.equal(await live(versionJobSubject(id, 2)), true);
        assert.equal(await live(versionJobSubject(id, 3)), true);

        assert.equal((await api.call('DELETE', `/${id}/versions/2`)).status, 204);
        assert.equal(await live(versionJobSubject(id, 2)), false, 'the deleted version’s job is gone');
        assert.equal(await live(versionJobSubject(id, 3)), true, 'another version’s job stays');
        assert.equal(await live(id), true, 'the model’s own conversion stays');

        assert.equal((await api.call('DELETE', `/${id}`)).status, 200);
        assert.equal(
          await live(versionJobSubject(id, 3)),
          false,
          'deleting the model cancels its versions’ jobs',
        );
        assert.equal(await live(id), false);
      });

      void it('queues again a version whose job the queue lost, fails one whose job ended unrecorded, and leaves one whose job waits', async () => {
        const id = await modelWithVersions();
        const versionRow = (number: number) =>
          testApp.database.db
            .selectFrom('model_versions')
            .selectAll()
            .where('model_id', '=', id)
            .where('number', '=', number)
            .executeTakeFirstOrThrow();
        // Version 3's stored file gone before a worker looks: its job fails for good and stays in the queue, ended.
        await testApp.blobs.delete((await versionRow(3)).source_key);
        // The model's own job and version 2's lost, as a queue that restarted empty loses them. The runner below
        // sweeps too, every second: the model and its version 1 are set completed and version 2 written to in the
        // future meanwhile, so it leaves them alone until this test sweeps.
        assert.equal(await testApp.queue.cancelQueued(id), 1);
        assert.equal(await testApp.queue.cancelQueued(versionJobSubject(id, 2)), 1);
        await testApp.database.db
          .updateTable('models')
          .set({ status: 'completed' })
          .where('id', '=', id)
          .execute();
        await testApp.database.db
          .updateTable('model_versions')
          .set({ status: 'completed' })
          .where('model_id', '=', id)
          .where('number', '=', 1)
          .execute();
        await testApp.database.db
          .updateTable('model_versions')
          .set({ updated_at: '2999-01-01T00:00:00.000Z' })
          .where('model_id', '=', id)
          .where('number', '=', 2)
          .execute();
        const runner = testApp.startJobRunner(notRendered);
        try {
          for (let tries = 0; (await versionRow(3)).status !== 'failed'; tries++) {
            assert.ok(tries < 600, `version 3 is still ${(await versionRow(3)).status}`);
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
        } finally {
          await runner.stop();
        }
        assert.equal(await testApp.queue.jobState(versionJobSubject(id, 3), JobName.ConvertModel), 'ended');
        const waiting = await api.postForm(
          `/${id}/versions`,
          {},
          { field: 'file', filename: 'v4.obj', data: OBJ },
        );
        assert.equal(waiting.status, 202, waiting.text);
        // Each left as a dead worker (or a database away past the retries) leaves it.
        await testApp.database.db
          .updateTable('model_versions')
          .set({ status: 'processing', progress: 40, error: null, updated_at: LONG_AGO })
          .where('model_id', '=', id)
          .where('number', 'in', [2, 3, 4])
          .execute();

        const sweepers = [queued.sweeper(), queued.sweeper()];
        await Promise.all(sweepers.map((sweep) => sweep.sweep()));

        const lost = await versionRow(2);
        assert.equal(lost.status, 'pending', 'queued again');
        assert.equal(lost.progress, 0);
        assert.equal(await live(versionJobSubject(id, 2)), true, 'under a job of its own');
        const ended = await versionRow(3);
        assert.equal(ended.status, 'failed');
        assert.equal(ended.error, STRANDED_VERSION_FAILURE);
        assert.equal(ended.progress, 0);
        assert.equal((await versionRow(4)).status, 'processing', 'its job waits');
        assert.equal(
          (await api.call('GET', `/${id}`)).json.data.status,
          'completed',
          'the model is left as it is',
        );
        const failed = await testApp.database.db
          .selectFrom('events')
          .select('data')
          .where('type', '=', 'model.version.failed')
          .where('model_id', '=', id)
          .execute();
        assert.deepEqual(
          failed.map((row) => JSON.parse(row.data)).filter((data) => data.error === STRANDED_VERSION_FAILURE),
          [{ model_id: id, version: 3, based_on: 1, error: STRANDED_VERSION_FAILURE }],
          'announced once, by one of the two sweeps',
        );
      });
    },
  );
}
