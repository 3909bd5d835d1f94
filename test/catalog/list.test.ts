import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const STL =
  'solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n';

// Uploaded in this order; names, descriptions and file names chosen so each search below has one right answer.
const UPLOADS: { filename: string; data: string; name?: string; description?: string }[] = [
  { filename: 'first.obj', data: OBJ, name: 'Alpha 100%' },
  { filename: 'second.obj', data: OBJ, name: 'Alpha 1000' },
  { filename: 'third.stl', data: STL, name: 'beta_one' },
  { filename: 'fourth.stl', data: STL, name: 'betaXone', description: 'Holds a WIDGET inside' },
  { filename: 'Delta-Part.obj', data: OBJ },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of testDialects()) {
  void describe(`listing models (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    const ids: string[] = [];
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      for (const upload of UPLOADS) {
        const fields: Record<string, string> = {};
        if (upload.name) fields.name = upload.name;
        if (upload.description) fields.description = upload.description;
        ids.push((await api.create(upload.filename, upload.data, fields)).id);
        // Distinct creation times, so "newest first" has one right order.
        await sleep(5);
      }
    });
    after(() => testApp.close());

    const names = async (query: string) => {
      const response = await api.call('GET', `?${query}`);
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      return (response.json.data as { name: string }[]).map((model) => model.name);
    };

    void it('lists newest first with the defaults 20 and 0 echoed in meta', async () => {
      const response = await api.call('GET', '');
      assert.equal(response.status, 200);
      assert.equal(response.json.success, true);
      assert.deepEqual(
        response.json.data.map((model: { id: string }) => model.id),
        [...ids].reverse(),
      );
      assert.deepEqual(response.json.meta, { total: 5, limit: 20, offset: 0 });
      const read = await api.call('GET', `/${ids[0]}`);
      assert.deepEqual(response.json.data.at(-1), read.json.data, 'list items are whole models');
    });

    void it('treats limit=0 and offset=0 as the defaults', async () => {
      const response = await api.call('GET', '?limit=0&offset=0');
      assert.equal(response.status, 200);
      assert.deepEqual(response.json.meta, { total: 5, limit: 20, offset: 0 });
      assert.equal(response.json.data.length, 5);
    });

    void it('pages with limit and offset while total counts every match', async () => {
      const page = await api.call('GET', '?limit=2&offset=1');
      assert.deepEqual(page.json.meta, { total: 5, limit: 2, offset: 1 });
      assert.deepEqual(
        page.json.data.map((model: { id: string }) => model.id),
        [ids[3], ids[2]],
      );
      const last = await api.call('GET', '?limit=100&offset=4');
      assert.deepEqual(
        last.json.data.map((model: { id: string }) => model.id),
        [ids[0]],
      );
      const beyond = await api.call('GET', '?offset=50');
      assert.deepEqual(beyond.json.data, []);
      assert.deepEqual(beyond.json.meta, { total: 5, limit: 20, offset: 50 });
    });

    void it('searches name, description and file name case-insensitively', async () => {
      assert.deepEqual(await names('search=alpha'), ['Alpha 1000', 'Alpha 100%']);
      assert.deepEqual(await names('search=widget'), ['betaXone']);
      assert.deepEqual(await names('search=DELTA-part'), ['Delta-Part']);
      assert.deepEqual(await names('search=.STL'), ['betaXone', 'beta_one']);
      assert.deepEqual(await names('search=nothing-like-this'), []);
      const counted = await api.call('GET', '?search=alpha&limit=1');
      assert.deepEqual(counted.json.meta, { total: 2, limit: 1, offset: 0 });
    });

    void it('treats % and _ in a search as literal characters', async () => {
      assert.deepEqual(await names(`search=${encodeURIComponent('100%')}`), ['Alpha 100%']);
      assert.deepEqual(await names(`search=${encodeURIComponent('%')}`), ['Alpha 100%']);
      assert.deepEqual(await names('search=beta_one'), ['beta_one']);
      assert.deepEqual(await names('search=_'), ['beta_one']);
      assert.deepEqual(await names(`search=${encodeURIComponent('\\')}`), []);
    });

    void it('filters by status and by format, combined with search', async () => {
      assert.equal((await names('status=pending')).length, 5);
      assert.deepEqual(await names('status=completed'), []);
      assert.deepEqual(await names('status=failed'), []);
      assert.deepEqual(await names('format=stl'), ['betaXone', 'beta_one']);
      assert.deepEqual(await names('format=STL'), ['betaXone', 'beta_one']);
      assert.deepEqual(await names('format=glb'), []);
      assert.deepEqual(await names('format=obj&search=alpha'), ['Alpha 1000', 'Alpha 100%']);
      assert.deepEqual(await names('format=stl&status=pending&search=widget'), ['betaXone']);
    });

    void it('answers 400 naming the parameter for a bad limit, offset or status', async () => {
      for (const [query, parameter] of [
        ['limit=101', 'limit'],
        ['limit=-1', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=1.5', 'limit'],
        ['offset=-1', 'offset'],
        ['offset=abc', 'offset'],
        ['status=bogus', 'status'],
        ['status=COMPLETED', 'status'],
      ]) {
        const response = await api.call('GET', `?${query}`);
        assert.equal(response.status, 400, query);
        assert.equal(response.json.success, false, query);
        assert.match(response.json.error, new RegExp(`^${parameter} `), `${query}: ${response.json.error}`);
      }
      const status = await api.call('GET', '?status=bogus');
      assert.equal(status.json.error, 'status must be one of pending, processing, completed, failed');
      const limit = await api.call('GET', '?limit=101');
      assert.equal(limit.json.error, 'limit must be an integer between 0 and 100');
      assert.equal((await api.call('GET', '?limit=100')).status, 200);
    });
  });
}
