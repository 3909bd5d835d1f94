import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SYSTEM_FAILURE } from '../../src/catalog/conversion/convert-model-job.ts';
import { boxTexturedZip, catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

for (const dialect of testDialects()) {
  void describe(`reprocessing a model that failed for a reason outside its file (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    void it('retries, fails without showing server details, and completes on reprocess once the upload is back', async () => {
      const model = await api.create('BoxTextured.zip', boxTexturedZip());
      // The stored upload goes missing before any worker looks at it, as in a storage outage.
      const folder = path.join(testApp.config.dataDir, 'files', 'models', model.id, 'source');
      const [stored] = fs.readdirSync(folder);
      const aside = path.join(testApp.config.dataDir, 'aside.zip');
      fs.renameSync(path.join(folder, stored!), aside);
      testApp.startJobRunner();

      const failed = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 60_000);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error, SYSTEM_FAILURE, 'no server path reaches the client');
      const jobs = await testApp.database.db
        .selectFrom('jobs')
        .select(['status', 'attempts'])
        .where('subject', '=', model.id)
        .execute();
      assert.deepEqual(jobs, [{ status: 'failed', attempts: 3 }], 'three attempts, then kept for inspection');

      fs.renameSync(aside, path.join(folder, stored!));
      const response = await api.call('POST', `/${model.id}/reprocess`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.data.status, 'pending');
      assert.equal(response.json.data.error, null);
      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 120_000);
      assert.equal(done.status, 'completed', done.error);
      assert.equal(done.progress, 100);
      assert.equal(done.lods.length, 3);
      assert.equal(done.error, null);
    });
  });
}
