// PostgreSQL answered 500 to a NUL character in any text value (group ids, names, search, PATCH fields, upload
// fields) where SQLite stored it. Both now refuse it alike, with a 400 naming the field, and store nothing.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const NUL = 'a\u0000b';
const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const materialError = (message: string) => JSON.stringify({ code: 400, message });

for (const dialect of testDialects()) {
  void describe(`NUL characters in text values (${dialect})`, () => {
    let testApp: TestApp;
    let materialId: number;
    let modelId: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      const created = await send('POST', '/api/v1/materials', { name: 'Steel' });
      materialId = JSON.parse(created.body).data.id;
      modelId = (await catalogApi(testApp.app, testApp.auth).create('tri.obj', OBJ)).id;
    });
    after(() => testApp.close());

    function send(method: string, url: string, body?: unknown) {
      return testApp.app.inject({
        method: method as 'GET',
        url,
        headers: body === undefined ? testApp.auth : { ...testApp.auth, 'content-type': 'application/json' },
        payload: body === undefined ? undefined : JSON.stringify(body),
      });
    }

    void it('refuses NUL in material fields, group ids and queries with 400 naming the field', async () => {
      const cases: [method: string, url: () => string, body: unknown, field: string][] = [
        ['POST', () => '/api/v1/materials', { name: NUL }, 'name'],
        ['PUT', () => `/api/v1/materials/${materialId}`, { name: NUL }, 'name'],
        ['GET', () => `/api/v1/materials?name=${encodeURIComponent(NUL)}`, undefined, 'name'],
        ['POST', () => `/api/v1/materials/${materialId}/bindings`, { group_ids: ['ok', NUL] }, 'group_ids'],
        ['DELETE', () => `/api/v1/materials/${materialId}/bindings`, { group_ids: [NUL] }, 'group_ids'],
        ['POST', () => '/api/v1/groups/materials', { group_ids: [NUL], include_default: true }, 'group_ids'],
      ];
      for (const [method, url, body, field] of cases) {
        const response = await send(method, url(), body);
        assert.equal(response.statusCode, 400, `${method} ${url()}: ${response.body}`);
        assert.equal(response.body, materialError(`${field} must not contain NUL characters`));
      }
      const groups = await send('GET', `/api/v1/materials/${materialId}/groups`);
      assert.equal(JSON.parse(groups.body).data.total, 0, 'nothing was bound');
    });

    void it('refuses NUL in catalog search, PATCH fields and upload fields with 400 naming the field', async () => {
      const api = catalogApi(testApp.app, testApp.auth);
      for (const [query, field] of [
        [`search=${encodeURIComponent(NUL)}`, 'search'],
        [`tag=${encodeURIComponent(NUL)}`, 'tag'],
      ] as const) {
        const listed = await api.call('GET', `?${query}`);
        assert.equal(listed.status, 400, listed.text);
        assert.equal(listed.text, catalogError(`${field} must not contain NUL characters`));
      }
      for (const [body, field] of [
        [{ name: NUL }, 'name'],
        [{ description: NUL }, 'description'],
        [{ tags: ['fine', NUL] }, 'tags'],
      ] as const) {
        const patched = await api.call('PATCH', `/${modelId}`, body);
        assert.equal(patched.status, 400, patched.text);
        assert.equal(patched.text, catalogError(`${field} must not contain NUL characters`));
      }
      for (const [fields, filename, field] of [
        [{ name: NUL }, 'tri.obj', 'name'],
        [{ description: NUL }, 'tri.obj', 'description'],
        [{}, 'tri\u0000.obj', 'file name'],
      ] as const) {
        const uploaded = await api.upload(filename, OBJ, fields);
        assert.equal(uploaded.status, 400, uploaded.text);
        assert.equal(uploaded.text, catalogError(`${field} must not contain NUL characters`));
      }
      const all = await api.call('GET', '');
      assert.equal(all.json.meta.total, 1, 'no refused upload was stored');
      assert.equal(all.json.data[0].name, 'tri');
    });

    void it('keeps the schema message for a value the schema refuses anyway', async () => {
      const model = await send('GET', `/api/models/${encodeURIComponent(NUL)}`);
      assert.equal(model.body, catalogError('Invalid model id'));
      const limit = await send('GET', `/api/models?limit=${encodeURIComponent(NUL)}`);
      assert.equal(limit.statusCode, 400);
      assert.doesNotMatch(limit.body, /NUL/);
    });
  });
}
