// S3 going away while the service runs: an upload answers 503 with a message and leaves nothing behind, a
// conversion fails with a message saying it was the server's fault, and both work again once S3 is back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SYSTEM_FAILURE } from '../../src/catalog/conversion/convert-model-job.ts';
import { STORAGE_UNAVAILABLE } from '../../src/storage/storage-unavailable.ts';
import { catalogApi, catalogError, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const TRUCK = 'glb/CesiumMilkTruck.glb';

for (const dialect of testDialects()) {
  void describe(`S3 outage (${dialect})`, () => {
    let s3: TestS3Server;
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      s3 = await startS3Server();
      Object.assign(process.env, S3RVER_CREDENTIALS);
      testApp = await createTestApp(dialect, s3.env('outage'));
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(async () => {
      await testApp.close();
      await s3.close();
    });

    void it('answers an upload 503 while S3 is down, keeps no model of it, and accepts it once S3 is back', async () => {
      await s3.stop();
      const refused = await api.upload('truck.glb', sample(TRUCK));
      assert.equal(refused.status, 503);
      assert.equal(refused.text, catalogError(STORAGE_UNAVAILABLE));
      assert.equal((await api.call('GET', '')).json.data.length, 0, 'no model without its file');

      await s3.restart();
      const accepted = await api.upload('truck.glb', sample(TRUCK));
      assert.equal(accepted.status, 201, accepted.text);
    });

    void it('fails a conversion on an outage with a message to reprocess, which then converts', async () => {
      const model = await api.create('truck.glb', sample(TRUCK));
      await s3.stop();
      testApp.startJobRunner();
      const failed = await waitForStatus(testApp.app, model.id as string, ['failed', 'completed']);
      assert.equal(failed.status, 'failed');
      assert.equal(failed.error, SYSTEM_FAILURE);
      // Signing needs no call to S3: the stable file URL still answers, the bucket is what is down.
      const original = await testApp.app.inject({
        method: 'GET',
        url: pathOf(failed.original_url as string),
      });
      assert.equal(original.statusCode, 302);

      await s3.restart();
      const reprocessed = await api.call('POST', `/${model.id}/reprocess`);
      assert.equal(reprocessed.status, 200, reprocessed.text);
      const converted = await waitForStatus(testApp.app, model.id as string, ['failed', 'completed']);
      assert.equal(converted.status, 'completed', converted.error as string);
    });
  });
}
