import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const LOD_ERROR = 'Invalid LOD level. Must be 0, 1, or 2.';
const TRIANGLE_OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';

for (const dialect of testDialects()) {
  // No worker runs here, so every uploaded model stays pending.
  void describe(`reading models, parts and addresses (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let pendingId: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      pendingId = (await api.create('triangle.obj', TRIANGLE_OBJ)).id;
    });
    after(() => testApp.close());

    void it('answers 404 `Model not found` for an unknown id on every model route', async () => {
      for (const [method, url, body] of [
        ['GET', `/${UNKNOWN_ID}`],
        ['GET', `/${UNKNOWN_ID}/parts`],
        ['PATCH', `/${UNKNOWN_ID}`, { name: 'x' }],
        ['DELETE', `/${UNKNOWN_ID}`],
        ['POST', `/${UNKNOWN_ID}/regenerate-thumbnail`],
        ['POST', `/${UNKNOWN_ID}/reprocess`],
      ] as const) {
        const response = await api.call(method, url, body);
        assert.equal(response.status, 404, `${method} ${url}`);
        assert.equal(response.text, catalogError('Model not found'), `${method} ${url}`);
      }
    });

    void it('answers 400 `Invalid model id` for an id that is not a uuid', async () => {
      for (const id of ['abc', '123', `${UNKNOWN_ID}0`, 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz']) {
        for (const [method, url, body] of [
          ['GET', `/${id}`],
          ['GET', `/${id}/parts`],
          ['GET', `/${id}/url`],
          ['GET', `/${id}/lod`],
          ['GET', `/${id}/lod/0`],
          ['PATCH', `/${id}`, { name: 'x' }],
          ['DELETE', `/${id}`],
          ['POST', `/${id}/thumbnail`],
          ['POST', `/${id}/regenerate-thumbnail`],
          ['POST', `/${id}/reprocess`],
        ] as const) {
          const response = await api.call(method, url, body);
          assert.equal(response.status, 400, `${method} ${url}`);
          assert.equal(response.text, catalogError('Invalid model id'), `${method} ${url}`);
        }
      }
    });

    void it('reads a pending model without addresses, and its parts as an empty list', async () => {
      const read = await api.call('GET', `/${pendingId}`);
      assert.equal(read.status, 200);
      assert.equal(read.json.data.id, pendingId);
      assert.equal(read.json.data.status, 'pending');
      assert.equal(read.json.data.model_url, null);
      assert.deepEqual(read.json.data.lods, []);
      const parts = await api.call('GET', `/${pendingId}/parts`);
      assert.equal(parts.status, 200);
      assert.deepEqual(parts.json, { success: true, data: [] });
    });

    void it('answers 404 `Model not ready or not found` for the addresses of a pending or unknown model', async () => {
      for (const id of [pendingId, UNKNOWN_ID]) {
        for (const url of [`/${id}/url`, `/${id}/lod`, `/${id}/lod/0`, `/${id}/lod/1`, `/${id}/lod/2`]) {
          const response = await api.call('GET', url);
          assert.equal(response.status, 404, url);
          assert.equal(response.text, catalogError('Model not ready or not found'), url);
        }
      }
    });

    void it('checks the LOD level before the model: 400 for a bad level even with an unknown or bad id', async () => {
      for (const id of [pendingId, UNKNOWN_ID, 'not-a-uuid']) {
        for (const level of ['3', 'x', '-1', '1.5', '99', '', '%20', '0x1', '1e0']) {
          const url = level === '' ? `/${id}/lod/` : `/${id}/lod/${level}`;
          const response = await api.call('GET', url);
          assert.equal(response.status, 400, url);
          assert.equal(response.text, catalogError(LOD_ERROR), url);
        }
      }
    });

    void it('answers 400 `Model not ready for thumbnail generation` for a pending model and queues nothing', async () => {
      const response = await api.call('POST', `/${pendingId}/regenerate-thumbnail`);
      assert.equal(response.status, 400);
      assert.equal(response.text, catalogError('Model not ready for thumbnail generation'));
      const jobs = await testApp.database.db
        .selectFrom('jobs')
        .select('name')
        .where('subject', '=', pendingId)
        .execute();
      assert.deepEqual(jobs, [{ name: 'convert-model' }]);
    });

    void it('answers 409 to reprocess while the model is still pending, queueing nothing more', async () => {
      const response = await api.call('POST', `/${pendingId}/reprocess`);
      assert.equal(response.status, 409);
      assert.equal(response.json.success, false);
      assert.equal(typeof response.json.error, 'string');
      const jobs = await testApp.database.db
        .selectFrom('jobs')
        .select('name')
        .where('subject', '=', pendingId)
        .execute();
      assert.equal(jobs.length, 1);
    });
  });
}
