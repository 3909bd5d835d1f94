import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.ts';
import { KEPT_CHANGES, MAX_LISTED_GROUPS } from '../../src/db/material-generation.ts';
import { createLogger } from '../../src/logger.ts';
import { createLookupCache } from '../../src/materials/lookup-cache.ts';
import { buildLookupResponse } from '../../src/materials/lookup-response.ts';
import { openServices, type Services } from '../../src/services.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, TEST_TOKEN, type TestApp } from '../helpers/test-app.ts';

const GROUPS = Array.from({ length: 2_000 }, (_, i) => `cache-model:${i}`);

void describe('lookup cache', () => {
  void it('keeps replies within its byte budget, least recently used out first', () => {
    const cache = createLookupCache(100);
    const request = Buffer.from('{}');
    // An answer without entries is 40 bytes; each requested group adds 48 to what the cache counts.
    const entry = (groups: number) => ({
      request,
      generation: 1,
      includeDefault: false,
      response: buildLookupResponse(
        Array.from({ length: groups }, (_, i) => `g${i}`),
        new Map(),
        undefined,
      ),
    });
    cache.set('a', entry(0));
    cache.set('b', entry(0));
    assert.ok(cache.get('a', request), 'a is used, so b is now the oldest');
    cache.set('c', entry(0));
    assert.equal(cache.get('b', request), undefined);
    assert.ok(cache.get('a', request));
    assert.ok(cache.get('c', request));
    cache.set('huge', entry(2));
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
    /** How many entries a lookup of these groups answers. */
    const entryCount = async (groupIds: string[]) => {
      const answer = await api.call('POST', '/groups/materials', { group_ids: groupIds });
      assert.equal(answer.status, 200, answer.text);
      return answer.json.data.length as number;
    };
    /** Binds a group behind the service's back, without raising the generation: only a full read shows it. */
    const bindWithoutRaise = (groupId: string, materialId: number) =>
      testApp.database.db
        .insertInto('material_bindings')
        .values({ group_id: groupId, material_id: materialId, created_at: new Date().toISOString() })
        .execute();
    const boundTo = async (through = api) =>
      (await lookup(through)).json.data.map((entry: { material: { name: string } }) => entry.material.name);

    void it('answers a repeated lookup from the kept reply, patched with only the groups a change names', async () => {
      const steel = await api.create({ name: 'Steel' });
      await api.bind(steel.id, GROUPS.slice(0, 10));
      const first = await lookup();
      assert.equal(first.json.data.length, 10);

      // The kept reply stands, which shows the second lookup did not read the bindings.
      await bindWithoutRaise(GROUPS[10]!, steel.id);
      const kept = await lookup();
      assert.equal(kept.text, first.text);
      assert.equal(kept.headers.etag, first.headers.etag);

      await api.bind(steel.id, [GROUPS[11]!]);
      const patched = await lookup();
      assert.deepEqual(
        patched.json.data.map((entry: { group_id: string }) => entry.group_id),
        [...GROUPS.slice(0, 10), GROUPS[11]],
        'the bind is patched in; the group written without a raise is still not read',
      );
      assert.notEqual(patched.headers.etag, first.headers.etag);

      // A change too large to list leaves nothing to patch with: the next lookup reads every binding.
      const many = Array.from({ length: MAX_LISTED_GROUPS + 1 }, (_, i) => `elsewhere:${i}`);
      await api.bind(steel.id, many);
      const fresh = await lookup();
      assert.equal(fresh.json.data.length, 12, 'read anew: the unlogged binding shows now');
      assert.notEqual(fresh.headers.etag, patched.headers.etag);
      assert.equal(fresh.text.length, Number(fresh.headers['content-length']));
    });

    void it('reads a kept reply in full once the change log no longer covers its age', async () => {
      const felt = await api.create({ name: 'Felt' });
      await api.bind(felt.id, GROUPS.slice(500, 510));
      const count = () => entryCount(GROUPS.slice(500, 520));
      assert.equal(await count(), 10);
      await bindWithoutRaise(GROUPS[515]!, felt.id);
      for (let i = 0; i < KEPT_CHANGES; i++) await api.bind(felt.id, [`churn:${i}`]);
      assert.equal(await count(), 10, 'every change since is still logged: patched');
      await api.bind(felt.id, ['churn:last']);
      assert.equal(await count(), 10, 'patched again, from the generation the reply was brought to');
      for (let i = 0; i <= KEPT_CHANGES; i++) await api.bind(felt.id, [`churn:more:${i}`]);
      assert.equal(await count(), 11, 'one change more than the log keeps: read in full');
    });

    void it('reads a kept reply in full when more than half its groups changed', async () => {
      const cork = await api.create({ name: 'Cork' });
      const groups = GROUPS.slice(600, 610);
      const count = () => entryCount(groups);
      assert.equal(await count(), 0);
      await bindWithoutRaise(groups[9]!, cork.id);
      await api.bind(cork.id, groups.slice(0, 5));
      assert.equal(await count(), 5, 'half of them changed: patched');
      await api.bind(cork.id, groups.slice(5, 6));
      await api.bind(cork.id, groups.slice(6, 7));
      assert.equal(await count(), 7, 'two of ten changed since: patched, the unraised binding still unseen');
      await api.call('DELETE', `/materials/${cork.id}/bindings`, { group_ids: groups.slice(0, 6) });
      assert.equal(await count(), 2, 'six of ten changed: read in full, the unraised binding seen');
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

    void it('sends a patched reply whole, with its length, in every encoding and as a 304', async () => {
      const ink = await api.create({ name: 'Ink' });
      await api.bind(ink.id, GROUPS.slice(300, 400));
      const post = (headers: Record<string, string> = {}) =>
        testApp.app.inject({
          method: 'POST',
          url: '/api/v1/groups/materials',
          headers: { ...testApp.auth, 'content-type': 'application/json', ...headers },
          payload: JSON.stringify({ group_ids: GROUPS, include_default: true }),
        });
      const before = await post();
      // Moved to Ink by another process, ahead of every other entry, and one of Ink's groups unbound.
      await second.api.bind(ink.id, [GROUPS[0]!]);
      await second.api.call('DELETE', `/materials/${ink.id}/bindings`, { group_ids: [GROUPS[300]!] });
      const patched = await post();
      assert.equal(patched.statusCode, 200);
      assert.equal(patched.rawPayload.length, Number(patched.headers['content-length']));
      const entries = patched.json().data as { group_id: string; material: { name: string } }[];
      assert.equal(entries.length, GROUPS.length);
      assert.equal(entries[0]!.material.name, 'Ink');
      assert.equal(entries[300]!.material.name, 'default');
      assert.equal(entries.filter((entry) => entry.material.name === 'Ink').length, 100);
      assert.notEqual(patched.headers.etag, before.headers.etag);

      const decoders = { br: zlib.brotliDecompressSync, gzip: zlib.gunzipSync };
      for (const encoding of ['br', 'gzip'] as const) {
        const compressed = await post({ 'accept-encoding': encoding });
        assert.equal(compressed.headers['content-encoding'], encoding);
        assert.equal(compressed.headers.etag, patched.headers.etag);
        assert.ok(decoders[encoding](compressed.rawPayload).equals(patched.rawPayload), encoding);
      }
      const unchanged = await post({ 'if-none-match': String(patched.headers.etag) });
      assert.equal(unchanged.statusCode, 304);
      assert.equal(unchanged.body, '');

      // The same request answered anew by a process without a kept reply: the same bytes and tag.
      const elsewhere = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/groups/materials',
        headers: { ...testApp.auth, 'content-type': 'application/json' },
        payload: `${JSON.stringify({ group_ids: GROUPS, include_default: true })} `,
      });
      assert.ok(elsewhere.rawPayload.equals(patched.rawPayload));
      assert.equal(elsewhere.headers.etag, patched.headers.etag);
    });

    void it('keeps a material read until a change through this process or another one', async () => {
      const glass = await api.create({ name: 'Glass' });
      const read = () => api.call('GET', `/materials/${glass.id}`);
      const first = await read();
      assert.equal(first.json.data.name, 'Glass');
      // Renamed behind the service's back, without a raise: on SQLite the kept reply stands, which shows the
      // second read did not read the row; PostgreSQL reads the row every time.
      await testApp.database.db
        .updateTable('materials')
        .set({ name: 'Quietly renamed' })
        .where('id', '=', glass.id)
        .execute();
      assert.equal((await read()).json.data.name, dialect === 'sqlite' ? 'Glass' : 'Quietly renamed');

      await second.api.call('PUT', `/materials/${glass.id}`, { alpha: 12 });
      const updated = await read();
      assert.equal(updated.json.data.alpha, 12);
      assert.equal(updated.json.data.name, 'Quietly renamed');
      assert.notEqual(updated.headers.etag, first.headers.etag);
      assert.equal((await second.api.call('DELETE', `/materials/${glass.id}`)).status, 200);
      assert.equal((await read()).status, 404);
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
      assert.equal(text.statusCode, 415);
      assert.equal(
        text.body,
        JSON.stringify({ code: 415, message: 'unsupported content type: send application/json' }),
      );
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
