// A version's conversion job is its own: deleting a version still waiting cancels its job and no other (the
// model's, another version's), deleting the model cancels its versions' jobs, and a version left converting
// without a job (a worker that died, a job lost with its queue) is failed by the stranded sweep like a model.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { STRANDED_VERSION_FAILURE } from '../../../src/catalog/conversion/sweep-stranded-models.ts';
import { JobName } from '../../../src/jobs/job-types.ts';
import { versionJobSubject } from '../../../src/catalog/versions/schemas.ts';
import type { catalogApi } from '../../helpers/catalog-api.ts';
import { queueSetups, useQueuedApp } from '../../helpers/queued-app.ts';
import { skipWithoutRedis } from '../../helpers/redis.ts';
import type { TestApp } from '../../helpers/test-app.ts';

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

      void it('fails a version left converting without a job, and leaves one whose job still waits', async () => {
        const id = await modelWithVersions();
        // The model converted (its job done), version 2's job lost, both versions left as a dead worker leaves them.
        assert.equal(await testApp.queue.cancelQueued(id), 1);
        assert.equal(await testApp.queue.cancelQueued(versionJobSubject(id, 2)), 1);
        await testApp.database.db
          .updateTable('models')
          .set({ status: 'completed' })
          .where('id', '=', id)
          .execute();
        await testApp.database.db
          .updateTable('model_versions')
          .set({ status: 'processing', progress: 40, updated_at: LONG_AGO })
          .where('model_id', '=', id)
          .where('number', 'in', [2, 3])
          .execute();

        const sweepers = [queued.sweeper(), queued.sweeper()];
        await Promise.all(sweepers.map((sweep) => sweep.sweep()));

        const stranded = (await api.call('GET', `/${id}/versions/2`)).json.data;
        assert.equal(stranded.status, 'failed');
        assert.equal(stranded.error, STRANDED_VERSION_FAILURE);
        assert.equal(stranded.progress, 0);
        assert.equal(
          (await api.call('GET', `/${id}/versions/3`)).json.data.status,
          'processing',
          'its job waits',
        );
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
          failed.map((row) => JSON.parse(row.data)),
          [{ model_id: id, version: 2, based_on: 1, error: STRANDED_VERSION_FAILURE }],
          'announced once, by one of the two sweeps',
        );
      });
    },
  );
}
