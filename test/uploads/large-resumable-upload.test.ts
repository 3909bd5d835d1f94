// A 200 MB resumable upload cut at about half and resumed: it streams to disk, so resident memory barely moves.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runBigResumableUpload } from '../helpers/big-resumable-upload.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const MB = 1024 * 1024;

for (const dialect of testDialects()) {
  void describe(`a large resumable upload (${dialect})`, () => {
    let testApp: TestApp;
    let baseUrl: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(() => testApp.close());

    void it('takes 200 MB in two halves around a dropped connection with under 100 MB of RSS growth', async () => {
      const result = await runBigResumableUpload(baseUrl, testApp.auth, 200 * MB);
      assert.ok(
        result.offsetAfterCut > 50 * MB && result.offsetAfterCut <= result.length / 2,
        `the second half started where the first stopped (${result.offsetAfterCut} of ${result.length})`,
      );
      assert.ok(
        result.rssGrowthBytes < 100 * MB,
        `RSS grew by ${Math.round(result.rssGrowthBytes / MB)} MB while 200 MB streamed`,
      );
      const stored = path.join(testApp.config.dataDir, 'uploads', result.uploadId);
      assert.equal(fs.statSync(stored).size, result.length);

      const made = await catalogApi(testApp.app, testApp.auth).call('POST', '', {
        upload_id: result.uploadId,
      });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.json.data.format, 'stl');
      assert.equal(made.json.data.file_size, result.length);
      assert.equal(fs.existsSync(stored), false, 'the upload moved into storage');
    });
  });
}
