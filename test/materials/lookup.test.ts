import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { errorText, materialApi, type MaterialJson } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// The default entry a lookup answers for an unbound group, byte for byte: no timestamps.
const DEFAULT_ENTRY =
  '{"id":-1,"name":"default","diffuse_r":192,"diffuse_g":192,"diffuse_b":192,"alpha":255,"shininess":0,' +
  '"specular_r":0,"specular_g":0,"specular_b":0,"ambient_r":0,"ambient_g":0,"ambient_b":0,"metallic":0,' +
  '"roughness":0.5,"reflectance":0.5}';

for (const dialect of testDialects()) {
  void describe(`POST /groups/materials (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof materialApi>;
    let a: MaterialJson;
    let b: MaterialJson;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = materialApi(testApp.app, testApp.auth);
      a = await api.create({ name: 'A', diffuse_r: 10, metallic: 1 });
      b = await api.create({ name: 'B', alpha: 0 });
      await api.bind(a.id, ['g1', 'g3']);
      await api.bind(b.id, ['g2']);
    });
    after(() => testApp.close());

    const read = async (id: number) => (await api.call('GET', `/materials/${id}`)).json.data as MaterialJson;

    void it('answers in request order with duplicates collapsed and unbound groups omitted', async () => {
      const answer = await api.call('POST', '/groups/materials', {
        group_ids: ['g3', 'nope', 'g1', 'g2', 'g3'],
      });
      assert.equal(answer.status, 200);
      assert.match(String(answer.headers['content-type']), /^application\/json/);
      const expected = {
        code: 0,
        message: 'success',
        data: [
          { group_id: 'g3', material: await read(a.id) },
          { group_id: 'g1', material: await read(a.id) },
          { group_id: 'g2', material: await read(b.id) },
        ],
      };
      assert.equal(answer.text, JSON.stringify(expected));
    });

    void it('answers an empty array when no group is bound, and with include_default false', async () => {
      const none = await api.call('POST', '/groups/materials', { group_ids: ['x', 'y'] });
      assert.equal(none.text, '{"code":0,"message":"success","data":[]}');
      const explicit = await api.call('POST', '/groups/materials', {
        group_ids: ['x', 'g2'],
        include_default: false,
      });
      assert.deepEqual(
        explicit.json.data.map((entry: { group_id: string }) => entry.group_id),
        ['g2'],
      );
    });

    void it('gives unbound groups the exact default entry when include_default is true', async () => {
      const answer = await api.call('POST', '/groups/materials', {
        group_ids: ['x', 'g2', 'x', 'y'],
        include_default: true,
      });
      assert.equal(answer.status, 200);
      const material = JSON.stringify(await read(b.id));
      assert.equal(
        answer.text,
        `{"code":0,"message":"success","data":[{"group_id":"x","material":${DEFAULT_ENTRY}},` +
          `{"group_id":"g2","material":${material}},{"group_id":"y","material":${DEFAULT_ENTRY}}]}`,
      );
    });

    void it('shows the current state of materials and bindings', async () => {
      await api.call('PUT', `/materials/${a.id}`, { name: 'A2', diffuse_b: 42 });
      await api.call('DELETE', `/materials/${a.id}/bindings`, { group_ids: ['g3'] });
      const answer = await api.call('POST', '/groups/materials', {
        group_ids: ['g1', 'g3'],
        include_default: true,
      });
      const [first, second] = answer.json.data;
      assert.deepEqual(first, { group_id: 'g1', material: await read(a.id) });
      assert.equal(first.material.name, 'A2');
      assert.equal(first.material.diffuse_b, 42);
      assert.equal(JSON.stringify(second), `{"group_id":"g3","material":${DEFAULT_ENTRY}}`);
    });

    void it('finds many groups spread over several statements, in request order', async () => {
      const c = await api.create({ name: 'C' });
      const ids = Array.from({ length: 25_000 }, (_, i) => `many-${i}`);
      await api.bind(
        c.id,
        ids.filter((_, i) => i % 2 === 0),
      );
      await api.bind(
        b.id,
        ids.filter((_, i) => i % 3 === 1),
      );
      const requested = [...ids].reverse();
      const answer = await api.call('POST', '/groups/materials', { group_ids: requested });
      assert.equal(answer.status, 200);
      const expected = requested
        .map((id) => {
          const i = Number(id.slice('many-'.length));
          if (i % 3 === 1) return [id, b.id];
          return i % 2 === 0 ? [id, c.id] : undefined;
        })
        .filter((entry) => entry !== undefined);
      assert.deepEqual(
        answer.json.data.map((entry: { group_id: string; material: { id: number } }) => [
          entry.group_id,
          entry.material.id,
        ]),
        expected,
      );
    });

    void it('refuses a bad request with a message naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ group_ids: [] }, 'group_ids must hold at least 1 item'],
        [{}, 'group_ids is required'],
        [{ include_default: true }, 'group_ids is required'],
        [{ group_ids: ['a'], include_default: 'yes' }, 'include_default must be true or false'],
        [{ group_ids: ['a'], include_default: 1 }, 'include_default must be true or false'],
        [{ group_ids: ['a', 'x'.repeat(257)] }, 'group_ids[1] must be a string of 1 to 256 characters'],
        [
          { group_ids: Array.from({ length: 100_001 }, (_, i) => `${i}`) },
          'group_ids must hold at most 100000 items',
        ],
        ['null', 'body must be a JSON object'],
        ['{', 'request body is not valid JSON'],
      ];
      for (const [body, message] of cases) {
        const answer = await api.call('POST', '/groups/materials', body);
        assert.equal(answer.status, 400, JSON.stringify(body).slice(0, 80));
        assert.equal(answer.text, errorText(400, message));
      }
    });
  });
}
