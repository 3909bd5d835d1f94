// A thumbnail render reads the model's stored files by key when it runs (its tileset, or a level of detail), so
// the jobs that ask for one name no file; a job queued by an earlier release, with LOD 0's address as
// `model_url`, still renders.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { JobName } from '../../src/jobs/job-types.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const OBJ = 'o tri\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';

for (const dialect of testDialects()) {
  void describe(`thumbnail job payloads (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let modelId: string;
    before(async () => {
      // A refresh waits far longer than the suite, so it stays queued to be read.
      testApp = await createTestApp(dialect, { THUMBNAIL_REFRESH_DELAY_MS: '600000' });
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
      modelId = (await api.create('tri.obj', OBJ)).id;
      const model = await waitForStatus(testApp.app, modelId, ['completed', 'failed'], 60_000);
      assert.equal(model.status, 'completed', model.error);
    });
    after(() => testApp.close());

    const thumbnailEvents = async (): Promise<number> =>
      (
        await testApp.database.db
          .selectFrom('events')
          .select('id')
          .where('type', '=', 'thumbnail.updated')
          .where('model_id', '=', modelId)
          .execute()
      ).length;

    void it('queues a refresh after a binding change with the model id alone', async () => {
      const [part] = (await api.call('GET', `/${modelId}/parts`)).json.data as { group_id: string }[];
      const materials = materialApi(testApp.app, testApp.auth);
      const red = await materials.create({ name: 'Red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 });
      await materials.bind(red.id, [part!.group_id]);
      const jobs = await testApp.database.db
        .selectFrom('jobs')
        .select(['payload', 'status'])
        .where('name', '=', JobName.RenderThumbnail)
        .where('subject', '=', modelId)
        .where('status', '=', 'queued')
        .execute();
      assert.deepEqual(
        jobs.map((job) => JSON.parse(job.payload)),
        [{ model_id: modelId, after_bindings: true }],
      );
    });

    void it('renders a job queued with an address, which it does not read', async () => {
      const before = await thumbnailEvents();
      await testApp.queue.enqueue(
        JobName.RenderThumbnail,
        { model_id: modelId, model_url: 'http://127.0.0.1:9/no-such-file.glb' },
        { subject: modelId },
      );
      const since = Date.now();
      while ((await thumbnailEvents()) === before) {
        assert.ok(Date.now() - since < 60_000, 'no new thumbnail within a minute');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
  });
}
