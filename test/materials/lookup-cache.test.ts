import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import { createLookupCache } from '../../src/materials/lookup-cache.ts';
import { openServices, type Services } from '../../src/services.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, TEST_TOKEN, type TestApp } from '../helpers/test-app.ts';

const GROUPS = Array.from({ length: 2_000 }, (_, i) => `cache-model:${i}`);

void describe('lookup cache', () => {
  void it('keeps replies within its byte budget, least recently used out first', () => {
    const cache = createLookupCache(100);
    const request = Buffer.from('{}');
    const entry = (size: number) => ({ request, generation: 1, body: Buffer.alloc(size), etag: 'W/"x"' });
    cache.set('a', entry(38));
    cache.set('b', entry(38));
    assert.ok(cache.get('a', request), 'a is used, so b is now the oldest');
    cache.set('c', entry(38));
    assert.equal(cache.get('b', request), undefined);
    assert.ok(cache.get('a', request));
    assert.ok(cache.get('c', request));
    cache.set('huge', entry(99));
    assert.equal(cache.get('huge', request), undefined, 'a reply larger than the budget is not kept');
    assert.ok(cache.get('a', request), 'and pushes nothing out');
    assert.equal(cache.get('a', Buffer.from('[]')), undefined, 'other request bytes under the same key miss');
    assert.equal(cache.keyOf(Buffer.from('{"a":1}')), cache.keyOf(Buffer.from('{"a":1}')));
    assert.notEqual(cache.keyOf(Buffer.from('{"a":1}')), cache.keyOf(Buffer.from('{"a": 1}')));
  });
});

for (const dialect of testDialects()) {
  void describe(`kept lookup replies (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof materialApi>;
    let second: { services: Services; api: ReturnType<typeof materialApi>; close(): Promise<void> };
    before(async () => {
      testApp = await createTestApp(dialect);
      api = materialApi(testApp.app, testApp.auth);
      // A second API process's view: its own connections and cache on the same database.
      const services = await openServices(testApp.config);
      const app = await buildApp({
        config: testApp.config,
        ...services,
        apiToken: TEST_TOKEN,
        logger: createLogger('silent'),
      });
      second = {
        services,
        api: materialApi(app, testApp.auth),
        close: async () => {
          await app.close();
          await services.close();
        },
      };
    });
    after(async () => {
      await second.close();
      await testApp.close();
    });

    const lookup = async (through = api) => {
      const answer = await through.call('POST', '/groups/materials', { group_ids: GROUPS });
      assert.equal(answer.status, 200, answer.text);
      return answer;
    };
    const boundTo = async (through = api) =>
      (await lookup(through)).json.data.map((entry: { material: { name: string } }) => entry.material.name);

    void it('answers a repeated lookup from the kept reply until the material generation moves', async () => {
      const steel = await api.create({ name: 'Steel' });
      await api.bind(steel.id, GROUPS.slice(0, 10));
      const first = await lookup();
      assert.equal(first.json.data.length, 10);

      // A binding written behind the service's back, without raising the generation: the kept reply stands,
      // which shows the second lookup did not read the bindings.
      await testApp.database.db
        .insertInto('material_bindings')
        .values({ group_id: GROUPS[10]!, material_id: steel.id, created_at: new Date().toISOString() })
        .execute();
      const kept = await lookup();
      assert.equal(kept.text, first.text);
      assert.equal(kept.headers.etag, first.headers.etag);

      await api.bind(steel.id, [GROUPS[11]!]);
      const fresh = await lookup();
      assert.equal(fresh.json.data.length, 12, 'a bind raises the generation: every binding is read again');
      assert.notEqual(fresh.headers.etag, first.headers.etag);
    });

    void it('sees every kind of change, made through this process or another one', async () => {
      const paint = await api.create({ name: 'Paint' });
      await api.bind(paint.id, GROUPS.slice(100, 110));
      assert.equal((await boundTo()).filter((name: string) => name === 'Paint').length, 10);
      assert.equal((await boundTo(second.api)).filter((name: string) => name === 'Paint').length, 10);

      await second.api.call('PUT', `/materials/${paint.id}`, { name: 'Lacquer' });
      assert.equal((await boundTo()).filter((name: string) => name === 'Lacquer').length, 10, 'update');

      const removed = await second.api.call('DELETE', `/materials/${paint.id}/bindings`, {
        group_ids: GROUPS.slice(100, 105),
      });
      assert.equal(removed.status, 200, removed.text);
      assert.equal((await boundTo()).filter((name: string) => name === 'Lacquer').length, 5, 'unbind');

      await second.api.bind(paint.id, GROUPS.slice(200, 203));
      assert.equal((await boundTo()).filter((name: string) => name === 'Lacquer').length, 8, 'bind');

      assert.equal((await second.api.call('DELETE', `/materials/${paint.id}`)).status, 200);
      assert.equal((await boundTo()).includes('Lacquer'), false, 'material delete');
    });

    void it('answers 304 from a kept reply whose tag the client holds', async () => {
      const first = await lookup();
      const again = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/groups/materials',
        headers: {
          ...testApp.auth,
          'content-type': 'application/json',
          'if-none-match': String(first.headers.etag),
        },
        payload: JSON.stringify({ group_ids: GROUPS }),
      });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
    });

    void it('still refuses a malformed body, a wrong content type and an oversized body', async () => {
      const bad = await api.call('POST', '/groups/materials', '{"group_ids": [');
      assert.equal(bad.status, 400);
      const text = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/groups/materials',
        headers: { ...testApp.auth, 'content-type': 'text/plain' },
        payload: JSON.stringify({ group_ids: GROUPS }),
      });
      // The same bytes as a kept reply's request, but not sent as JSON: refused as without a cache.
      assert.equal(text.statusCode, 400);
      assert.equal(text.body, JSON.stringify({ code: 400, message: 'body must be a JSON object' }));
      const huge = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/groups/materials',
        headers: { ...testApp.auth, 'content-type': 'application/json' },
        payload: `{"group_ids":["${'x'.repeat(33 * 1024 * 1024)}"]}`,
      });
      assert.equal(huge.statusCode, 413);
      assert.equal(huge.body, JSON.stringify({ code: 413, message: 'request body is too large' }));
    });
  });
}

for (const dialect of testDialects()) {
  void describe(`lookups with LOOKUP_CACHE_MB=0 (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => (testApp = await createTestApp(dialect, { LOOKUP_CACHE_MB: '0' })));
    after(() => testApp.close());

    void it('reads the bindings on every lookup', async () => {
      const api = materialApi(testApp.app, testApp.auth);
      const steel = await api.create({ name: 'Steel' });
      await api.bind(steel.id, GROUPS.slice(0, 3));
      const first = await api.call('POST', '/groups/materials', { group_ids: GROUPS });
      await testApp.database.db
        .insertInto('material_bindings')
        .values({ group_id: GROUPS[3]!, material_id: steel.id, created_at: new Date().toISOString() })
        .execute();
      const second = await api.call('POST', '/groups/materials', { group_ids: GROUPS });
      assert.equal(first.json.data.length, 3);
      assert.equal(second.json.data.length, 4);
    });
  });
}
