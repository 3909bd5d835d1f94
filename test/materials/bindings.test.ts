import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { errorText, materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Strings that must survive the JSON-array and text[] parameters of the bulk statements unchanged.
const AWKWARD_IDS = [
  'a"b',
  'back\\slash',
  '日本',
  'palette 🎨',
  '{"x":1}',
  'null',
  ' spaced ',
  '%',
  '_',
  "it's",
];

for (const dialect of testDialects()) {
  void describe(`bindings (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof materialApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = materialApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    const lookup = async (groupIds: string[]) => {
      const answer = await api.call('POST', '/groups/materials', { group_ids: groupIds });
      assert.equal(answer.status, 200, answer.text);
      return (answer.json.data as { group_id: string; material: { id: number } }[]).map(
        (entry) => [entry.group_id, entry.material.id] as const,
      );
    };

    void it('binds, echoing the requested ids deduplicated in request order', async () => {
      const material = await api.create({ name: 'A' });
      const answer = await api.call('POST', `/materials/${material.id}/bindings`, {
        group_ids: ['b', 'a', 'b', 'c', 'a'],
      });
      assert.equal(answer.status, 200);
      assert.equal(
        answer.text,
        JSON.stringify({
          code: 0,
          message: 'success',
          data: { material_id: material.id, group_ids: ['b', 'a', 'c'] },
        }),
      );
      assert.deepEqual(await api.allGroups(material.id), ['a', 'b', 'c']);
    });

    void it('treats rebinding to the same material as a no-op', async () => {
      const material = await api.create({ name: 'A' });
      await api.bind(material.id, ['r1', 'r2']);
      const again = await api.call('POST', `/materials/${material.id}/bindings`, { group_ids: ['r2', 'r1'] });
      assert.equal(again.status, 200);
      assert.deepEqual(again.json.data, { material_id: material.id, group_ids: ['r2', 'r1'] });
      assert.deepEqual(await api.allGroups(material.id), ['r1', 'r2']);
    });

    void it('moves a group bound elsewhere: the last bind wins', async () => {
      const a = await api.create({ name: 'A' });
      const b = await api.create({ name: 'B' });
      await api.bind(a.id, ['m1', 'm2']);
      await api.bind(b.id, ['m2', 'm3']);
      assert.deepEqual(await api.allGroups(a.id), ['m1']);
      assert.deepEqual(await api.allGroups(b.id), ['m2', 'm3']);
      assert.deepEqual(await lookup(['m1', 'm2', 'm3']), [
        ['m1', a.id],
        ['m2', b.id],
        ['m3', b.id],
      ]);
      await api.bind(a.id, ['m3']);
      assert.deepEqual(await api.allGroups(b.id), ['m2']);
      assert.deepEqual(await api.allGroups(a.id), ['m1', 'm3']);
    });

    void it('unbinds only what was bound to this material and reports exactly that', async () => {
      const a = await api.create({ name: 'A' });
      const b = await api.create({ name: 'B' });
      await api.bind(a.id, ['u1', 'u2', 'u3']);
      await api.bind(b.id, ['u4']);
      const answer = await api.call('DELETE', `/materials/${a.id}/bindings`, {
        group_ids: ['u3', 'u4', 'never-bound', 'u1', 'u3'],
      });
      assert.equal(answer.status, 200);
      assert.equal(
        answer.text,
        JSON.stringify({ code: 0, message: 'success', data: { material_id: a.id, unbound: ['u3', 'u1'] } }),
      );
      assert.deepEqual(await api.allGroups(a.id), ['u2']);
      assert.deepEqual(await api.allGroups(b.id), ['u4'], 'a group bound to another material stays bound');
      const again = await api.call('DELETE', `/materials/${a.id}/bindings`, { group_ids: ['u3', 'u1'] });
      assert.deepEqual(again.json.data, { material_id: a.id, unbound: [] });
    });

    void it('lists groups in byte order on every database', async () => {
      const material = await api.create({ name: 'Order' });
      const ids = ['b', 'B', 'a', '_', 'A', '0', 'é', 'a-b', 'a_b', 'aB', 'Z', '~'];
      await api.bind(material.id, ids);
      const byBytes = [...ids].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      assert.deepEqual(byBytes, ['0', 'A', 'B', 'Z', '_', 'a', 'a-b', 'aB', 'a_b', 'b', '~', 'é']);
      assert.deepEqual(await api.allGroups(material.id), byBytes);
    });

    void it('pages the groups of a material and clamps the paging values', async () => {
      const material = await api.create({ name: 'Paged' });
      const ids = Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      await api.bind(material.id, [...ids].reverse());
      const page = async (query: string) => {
        const answer = await api.call('GET', `/materials/${material.id}/groups${query}`);
        assert.equal(answer.status, 200, answer.text);
        return answer.json.data as { items: string[]; total: number; page: number; page_size: number };
      };
      const first = await page('');
      assert.deepEqual(first, { items: ids.slice(0, 20), total: 25, page: 1, page_size: 20 });
      assert.deepEqual(await page('?page=3&page_size=10'), {
        items: ids.slice(20),
        total: 25,
        page: 3,
        page_size: 10,
      });
      assert.deepEqual(await page('?page=0&page_size=500'), {
        items: ids,
        total: 25,
        page: 1,
        page_size: 100,
      });
      assert.deepEqual(await page('?page=-2&page_size=0'), {
        items: ids.slice(0, 20),
        total: 25,
        page: 1,
        page_size: 20,
      });
      assert.deepEqual(await page('?page=9'), { items: [], total: 25, page: 9, page_size: 20 });
      const empty = await api.create({ name: 'Empty' });
      const none = await api.call('GET', `/materials/${empty.id}/groups`);
      assert.equal(
        none.text,
        JSON.stringify({
          code: 0,
          message: 'success',
          data: { items: [], total: 0, page: 1, page_size: 20 },
        }),
      );
    });

    void it('keeps awkward group ids byte for byte', async () => {
      const material = await api.create({ name: 'Awkward' });
      await api.bind(material.id, AWKWARD_IDS);
      const sorted = [...AWKWARD_IDS].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      assert.deepEqual(await api.allGroups(material.id), sorted);
      assert.deepEqual(
        await lookup(AWKWARD_IDS),
        AWKWARD_IDS.map((id) => [id, material.id]),
      );
      const answer = await api.call('DELETE', `/materials/${material.id}/bindings`, {
        group_ids: AWKWARD_IDS,
      });
      assert.deepEqual(answer.json.data.unbound, AWKWARD_IDS);
    });

    void it('accepts group ids of 256 characters and refuses 257', async () => {
      const material = await api.create({ name: 'Long' });
      const longest = 'g'.repeat(255) + 'é';
      await api.bind(material.id, [longest]);
      assert.deepEqual(await api.allGroups(material.id), [longest]);
      for (const method of ['POST', 'DELETE']) {
        const answer = await api.call(method, `/materials/${material.id}/bindings`, {
          group_ids: ['ok', 'g'.repeat(257)],
        });
        assert.equal(answer.status, 400);
        assert.equal(answer.text, errorText(400, 'group_ids[1] must be a string of 1 to 256 characters'));
      }
      assert.deepEqual(await api.allGroups(material.id), [longest], 'a refused request binds nothing');
    });

    void it('refuses empty, missing and wrongly typed group_ids', async () => {
      const material = await api.create({ name: 'Refuse' });
      for (const method of ['POST', 'DELETE']) {
        const url = `/materials/${material.id}/bindings`;
        const cases: [unknown, string][] = [
          [{ group_ids: [] }, 'group_ids must hold at least 1 item'],
          [{}, 'group_ids is required'],
          [{ group_id: ['a'] }, 'group_ids is required'],
          [{ group_ids: 'a' }, 'group_ids must be an array of strings of 1 to 256 characters'],
          [{ group_ids: null }, 'group_ids must be an array of strings of 1 to 256 characters'],
          [{ group_ids: ['a', 7] }, 'group_ids[1] must be a string of 1 to 256 characters'],
          [{ group_ids: [''] }, 'group_ids[0] must be a string of 1 to 256 characters'],
          ['["a"]', 'body must be a JSON object'],
          ['{"group_ids":["a"', 'request body is not valid JSON'],
        ];
        for (const [body, message] of cases) {
          const answer = await api.call(method, url, body);
          assert.equal(answer.status, 400, `${method} ${JSON.stringify(body)}`);
          assert.equal(answer.text, errorText(400, message));
        }
      }
    });

    void it('refuses more than 100,000 group ids and accepts exactly 100,000', async () => {
      const material = await api.create({ name: 'Bulk' });
      const ids = Array.from({ length: 100_001 }, (_, i) => `bulk-${i}`);
      for (const method of ['POST', 'DELETE']) {
        const answer = await api.call(method, `/materials/${material.id}/bindings`, { group_ids: ids });
        assert.equal(answer.status, 400);
        assert.equal(answer.text, errorText(400, 'group_ids must hold at most 100000 items'));
      }
      const accepted = await api.call('POST', `/materials/${material.id}/bindings`, {
        group_ids: ids.slice(1),
      });
      assert.equal(accepted.status, 200);
      assert.equal(accepted.json.data.group_ids.length, 100_000);
      const groups = await api.call('GET', `/materials/${material.id}/groups?page_size=1`);
      assert.equal(groups.json.data.total, 100_000);
      const removed = await api.call('DELETE', `/materials/${material.id}/bindings`, {
        group_ids: ids.slice(0, 100_000),
      });
      assert.equal(removed.status, 200);
      assert.deepEqual(removed.json.data.unbound, ids.slice(1, 100_000));
      assert.deepEqual(await api.allGroups(material.id), ['bulk-100000']);
    });

    void it('answers 404 `material not found` for bindings and groups of an unknown material', async () => {
      for (const [method, suffix, body] of [
        ['POST', '/bindings', { group_ids: ['x'] }],
        ['DELETE', '/bindings', { group_ids: ['x'] }],
        ['GET', '/groups', undefined],
      ] as const) {
        const answer = await api.call(method, `/materials/987654${suffix}`, body);
        assert.equal(answer.status, 404, `${method} ${suffix}`);
        assert.equal(answer.text, errorText(404, 'material not found'));
      }
      assert.deepEqual(await lookup(['x']), [], 'binding to an unknown material stores nothing');
    });

    void it('removes the bindings with the material, freeing its groups', async () => {
      const doomed = await api.create({ name: 'Doomed' });
      const heir = await api.create({ name: 'Heir' });
      await api.bind(doomed.id, ['d1', 'd2']);
      await api.bind(heir.id, ['d3']);
      assert.equal((await api.call('DELETE', `/materials/${doomed.id}`)).status, 200);
      assert.deepEqual(await lookup(['d1', 'd2', 'd3']), [['d3', heir.id]]);
      const groups = await api.call('GET', `/materials/${doomed.id}/groups`);
      assert.equal(groups.text, errorText(404, 'material not found'));
      await api.bind(heir.id, ['d1']);
      assert.deepEqual(await api.allGroups(heir.id), ['d1', 'd3']);
    });
  });
}
