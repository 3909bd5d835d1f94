import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { materialApi, type MaterialJson } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

for (const dialect of testDialects()) {
  void describe(`ETag and If-None-Match (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof materialApi>;
    let a: MaterialJson;
    let b: MaterialJson;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = materialApi(testApp.app, testApp.auth);
      a = await api.create({ name: 'A' });
      b = await api.create({ name: 'B' });
      await api.bind(a.id, ['m:1', 'm:2']);
      await api.bind(b.id, ['m:3']);
    });
    after(() => testApp.close());

    const request = (method: 'GET' | 'POST', url: string, body?: unknown, ifNoneMatch?: string) =>
      testApp.app.inject({
        method,
        url: `/api/v1${url}`,
        headers: {
          ...testApp.auth,
          ...(body ? { 'content-type': 'application/json' } : {}),
          ...(ifNoneMatch ? { 'if-none-match': ifNoneMatch } : {}),
        },
        payload: body ? JSON.stringify(body) : undefined,
      });
    const lookupBody = { group_ids: ['m:1', 'm:3', 'm:9'], include_default: true };
    const lookup = (ifNoneMatch?: string) => request('POST', '/groups/materials', lookupBody, ifNoneMatch);

    void it('answers 304 with no body to an unchanged lookup, 200 after a bind that touches one of its groups', async () => {
      const first = await lookup();
      assert.equal(first.statusCode, 200);
      const etag = String(first.headers.etag);
      assert.match(etag, /^W\/"[\w-]+"$/);

      const unchanged = await lookup(etag);
      assert.equal(unchanged.statusCode, 304);
      assert.equal(unchanged.body, '');
      assert.equal(unchanged.headers.etag, etag);
      assert.equal((await lookup(`"other", ${etag}`)).statusCode, 304, 'any listed tag');
      assert.equal((await lookup(etag.slice(2))).statusCode, 304, 'weak comparison');

      // A bind elsewhere changes nothing this lookup shows.
      await api.bind(b.id, ['elsewhere']);
      assert.equal((await lookup(etag)).statusCode, 304);

      // Binding one of its groups (here one that had no material) changes the answer.
      await api.bind(b.id, ['m:9']);
      const changed = await lookup(etag);
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.equal(JSON.parse(changed.body).data[2].material.id, b.id);
      assert.equal((await lookup(String(changed.headers.etag))).statusCode, 304);

      // So do an unbind and an edit of a material it shows.
      const afterBind = String(changed.headers.etag);
      await api.call('DELETE', `/materials/${a.id}/bindings`, { group_ids: ['m:1'] });
      const unbound = await lookup(afterBind);
      assert.equal(unbound.statusCode, 200);
      await api.call('PUT', `/materials/${b.id}`, { alpha: 10 });
      assert.equal((await lookup(String(unbound.headers.etag))).statusCode, 200);
    });

    void it('tags a material read and answers 304 until the material changes', async () => {
      const first = await request('GET', `/materials/${a.id}`);
      assert.equal(first.statusCode, 200);
      const etag = String(first.headers.etag);
      const again = await request('GET', `/materials/${a.id}`, undefined, etag);
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');

      await api.call('PUT', `/materials/${a.id}`, { name: 'A2' });
      const changed = await request('GET', `/materials/${a.id}`, undefined, etag);
      assert.equal(changed.statusCode, 200);
      assert.equal(JSON.parse(changed.body).data.name, 'A2');
      assert.notEqual(changed.headers.etag, etag);
    });

    void it('tags no error', async () => {
      const missing = await request('GET', '/materials/999999', undefined, '*');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.headers.etag, undefined);
    });
  });
}
