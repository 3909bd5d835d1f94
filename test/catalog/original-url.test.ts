import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

for (const dialect of testDialects()) {
  void describe(`the original upload's address (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    void it('hands out original_url from the start and serves the upload byte for byte', async () => {
      const bytes = sample('stl/cyl_w_rect_hole.stl');
      const created = await api.create('cyl w rect hole.stl', bytes);
      assert.equal(created.status, 'pending');
      const url = (created as unknown as { original_url: string }).original_url;
      assert.match(url, /\/files\/models\/[0-9a-f-]+\/source\/cyl_w_rect_hole\.stl\?expires=\d+&signature=/);
      const listed = await api.call('GET', '');
      assert.equal(listed.json.data[0].original_url, url);
      const served = await testApp.app.inject({ method: 'GET', url: pathOf(url) });
      assert.equal(served.statusCode, 200);
      assert.ok(served.rawPayload.equals(bytes), 'the served file is the upload');
    });
  });
}
