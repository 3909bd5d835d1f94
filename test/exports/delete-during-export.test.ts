// A model deleted while its export is being written: the export finishes after the model's files are gone, removes
// the file it wrote, and the file store removes the folders that emptied, up to (not including) its root.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createModelRepository } from '../../src/catalog/repository.ts';
import { createExportJob } from '../../src/exports/export-job.ts';
import { exportModel } from '../../src/writers/export-model.ts';
import type { ExportKey } from '../../src/jobs/job-types.ts';
import { createConfigurationRepository } from '../../src/configurations/repository.ts';
import { createExportRepository } from '../../src/exports/repository.ts';
import { JobName } from '../../src/jobs/job-types.ts';
import type { QueueConsumer } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/logger.ts';
import { createMaterialRepository } from '../../src/materials/repository.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

/** Every folder under `root` that holds nothing. */
function emptyFolders(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .filter((folder) => fs.readdirSync(folder).length === 0)
    .map((folder) => path.relative(root, folder));
}

for (const dialect of testDialects()) {
  void describe(`deleting a model during its export (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let worker: QueueConsumer;
    before(async () => {
      testApp = await createTestApp(dialect);
      worker = testApp.startJobRunner(async () => Buffer.from('not rendered'));
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    void it('leaves neither the export nor empty folders on the file store', async () => {
      const root = testApp.blobs.localRoot!;
      const kept = await api.create('kept.glb', await twoPartGlb('kept'), { name: 'Kept' });
      const doomed = await api.create('doomed.glb', await twoPartGlb('doomed'), { name: 'Doomed' });
      await waitForStatus(testApp.app, kept.id, ['completed']);
      await waitForStatus(testApp.app, doomed.id, ['completed']);
      // The worker stops, so the export job below is the only one making this export.
      await worker.stop();
      // The export's row, as the route makes it, so the job finds its model's export asked for.
      const asked = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${doomed.id}/export?format=stl`,
        headers: testApp.auth,
      });
      assert.equal(asked.statusCode, 202, asked.body);

      const key: ExportKey = {
        model_id: doomed.id,
        format: 'stl',
        lod: 0,
        materials: 'bound',
        unit: 'millimeter',
        configuration_id: null,
      };
      const exports = createExportRepository(testApp.database);
      let deletedDuring = false;
      const job = createExportJob({
        models: createModelRepository(testApp.database),
        materials: createMaterialRepository(testApp.database),
        configurations: createConfigurationRepository(testApp.database),
        exports,
        blobs: testApp.blobs,
        logger: createLogger('silent'),
        // The model is deleted while the file is being made, before the job stores it.
        runExport: async (glb, options) => {
          const bytes = await exportModel(glb, options);
          const deleted = await api.call('DELETE', `/${doomed.id}`);
          assert.equal(deleted.status, 200, deleted.text);
          deletedDuring = true;
          return bytes;
        },
      });
      await job.run(
        { id: 'during-delete', name: JobName.ExportModel, payload: key, attempt: 1, maxAttempts: 1 },
        new AbortController().signal,
      );
      assert.ok(deletedDuring, 'the export ran and the model was deleted during it');
      assert.equal(await exports.get(key), undefined);
      assert.equal(fs.existsSync(path.join(root, 'models', doomed.id)), false, 'the model folder is gone');
      assert.deepEqual(emptyFolders(root), []);
      assert.ok(fs.existsSync(path.join(root, 'models', kept.id)), 'the other model keeps its files');

      // With the last model gone, nothing but the store's root is left.
      assert.equal((await api.call('DELETE', `/${kept.id}`)).status, 200);
      assert.ok(fs.existsSync(root), 'the root stays');
      assert.deepEqual(fs.readdirSync(root), []);
    });
  });
}
