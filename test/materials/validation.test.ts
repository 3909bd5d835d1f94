import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { errorText, materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const CHANNELS = [
  'diffuse_r',
  'diffuse_g',
  'diffuse_b',
  'alpha',
  'specular_r',
  'specular_g',
  'specular_b',
  'ambient_r',
  'ambient_g',
  'ambient_b',
];
const UNITS = ['metallic', 'roughness', 'reflectance'];
const NAME_MESSAGE = 'name must be a string of 1 to 255 characters';

// Raw JSON texts, so values JSON.stringify cannot produce (1e400) reach the parser as a client would send them.
const REFUSED_NUMBERS: [field: string, raw: string, message: string][] = [
  ...CHANNELS.flatMap((field): [string, string, string][] => {
    const message = `${field} must be a number between 0 and 255`;
    return ['256', '-1', '255.0001', '"12"', 'null', 'true', '[1]', '{}', '1e400', '-1e400'].map((raw) => [
      field,
      raw,
      message,
    ]);
  }),
  ...UNITS.flatMap((field): [string, string, string][] =>
    ['1.5', '-0.1', '"0.5"', '1e400'].map((raw) => [field, raw, `${field} must be a number between 0 and 1`]),
  ),
  ['shininess', '-1', 'shininess must be a finite number >= 0'],
  ['shininess', '1e400', 'shininess must be a finite number >= 0'],
  ['shininess', '"8"', 'shininess must be a finite number >= 0'],
];

for (const dialect of testDialects()) {
  void describe(`material validation (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof materialApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = materialApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    const refused = async (method: string, url: string, body: unknown, status: number, message: string) => {
      const answer = await api.call(method, url, body);
      assert.equal(answer.status, status, `${method} ${url} ${String(body).slice(0, 80)}: ${answer.text}`);
      assert.equal(answer.text, errorText(status, message));
    };

    void it('refuses out-of-range, non-finite and wrongly typed numbers, naming the field', async () => {
      for (const [field, raw, message] of REFUSED_NUMBERS) {
        await refused('POST', '/materials', `{"name":"n","${field}":${raw}}`, 400, message);
      }
    });

    void it('refuses the same numbers on update', async () => {
      const material = await api.create({ name: 'target' });
      for (const [field, raw, message] of REFUSED_NUMBERS) {
        await refused('PUT', `/materials/${material.id}`, `{"${field}":${raw}}`, 400, message);
      }
      const read = await api.call('GET', `/materials/${material.id}`);
      assert.equal(read.json.data.updated_at, material.updated_at, 'a refused update changes nothing');
    });

    void it('accepts the bounds of every range and large finite shininess', async () => {
      const low = Object.fromEntries([...CHANNELS, ...UNITS, 'shininess'].map((field) => [field, 0]));
      const high = {
        ...Object.fromEntries(CHANNELS.map((field) => [field, 255])),
        ...Object.fromEntries(UNITS.map((field) => [field, 1])),
        shininess: 1e300,
      };
      assert.deepEqual(pick(await api.create({ name: 'low', ...low }), low), low);
      assert.deepEqual(pick(await api.create({ name: 'high', ...high }), high), high);
    });

    void it('requires a name of 1 to 255 characters after trimming', async () => {
      await refused('POST', '/materials', {}, 400, 'name is required');
      await refused('POST', '/materials', { diffuse_r: 1 }, 400, 'name is required');
      await refused('POST', '/materials', { name: 5 }, 400, 'name must be a string');
      await refused('POST', '/materials', { name: null }, 400, 'name must be a string');
      await refused('POST', '/materials', { name: '' }, 400, NAME_MESSAGE);
      await refused('POST', '/materials', { name: ' \t\n ' }, 400, NAME_MESSAGE);
      await refused('POST', '/materials', { name: 'x'.repeat(256) }, 400, NAME_MESSAGE);
      const longest = await api.create({ name: `  ${'é'.repeat(255)}  ` });
      assert.equal(longest.name, 'é'.repeat(255));
    });

    void it('refuses bodies that are not a JSON object', async () => {
      await refused('POST', '/materials', '{"name":', 400, 'request body is not valid JSON');
      await refused('POST', '/materials', "{'name':'x'}", 400, 'request body is not valid JSON');
      for (const raw of ['[]', '[{"name":"x"}]', 'null', '"name"', '42', 'true']) {
        await refused('POST', '/materials', raw, 400, 'body must be a JSON object');
      }
      const material = await api.create({ name: 'target' });
      await refused('PUT', `/materials/${material.id}`, '[]', 400, 'body must be a JSON object');
      await refused('PUT', `/materials/${material.id}`, 'null', 400, 'body must be a JSON object');
      await refused('PUT', `/materials/${material.id}`, '{"name"', 400, 'request body is not valid JSON');
    });

    void it('refuses an empty JSON body and a body that is not JSON', async () => {
      await refused('POST', '/materials', '', 400, 'body must be a JSON object');
      const plain = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/materials',
        headers: { ...testApp.auth, 'content-type': 'application/xml' },
        payload: '<material/>',
      });
      assert.equal(plain.statusCode, 415);
      assert.equal(plain.body, errorText(415, 'unsupported content type: send application/json'));
    });

    void it('answers 413 in the envelope for an oversized body', async () => {
      const body = JSON.stringify({ name: 'big', padding: 'x'.repeat(2 * 1024 * 1024) });
      await refused('POST', '/materials', body, 413, 'request body is too large');
      const material = await api.create({ name: 'target' });
      await refused('PUT', `/materials/${material.id}`, body, 413, 'request body is too large');
      const groups = JSON.stringify({ group_ids: ['x'.repeat(256)], padding: 'x'.repeat(40 * 1024 * 1024) });
      await refused('POST', `/materials/${material.id}/bindings`, groups, 413, 'request body is too large');
    });

    void it('refuses a non-integer or non-positive id on every /materials/:id route', async () => {
      const routes: [string, string, unknown][] = [
        ['GET', '', undefined],
        ['PUT', '', { name: 'x' }],
        ['DELETE', '', undefined],
        ['POST', '/bindings', { group_ids: ['g'] }],
        ['DELETE', '/bindings', { group_ids: ['g'] }],
        ['GET', '/groups', undefined],
      ];
      for (const id of ['abc', '0', '-1', '1.5', '99999999999999999999', '1x', '%20']) {
        for (const [method, suffix, body] of routes) {
          await refused(method, `/materials/${id}${suffix}`, body, 400, 'id must be a positive integer');
        }
      }
    });

    void it('refuses non-integer paging parameters, naming them', async () => {
      const material = await api.create({ name: 'target' });
      for (const url of ['/materials', `/materials/${material.id}/groups`]) {
        await refused('GET', `${url}?page=abc`, undefined, 400, 'page must be an integer');
        await refused('GET', `${url}?page=1.5`, undefined, 400, 'page must be an integer');
        await refused('GET', `${url}?page_size=ten`, undefined, 400, 'page_size must be an integer');
        await refused('GET', `${url}?page_size=2.5`, undefined, 400, 'page_size must be an integer');
      }
    });

    void it('stores nothing for a refused request', async () => {
      const before = (await api.call('GET', '/materials?page_size=100')).json.data.total as number;
      await refused(
        'POST',
        '/materials',
        '{"name":"n","alpha":1e400}',
        400,
        'alpha must be a number between 0 and 255',
      );
      await refused('POST', '/materials', { name: '   ' }, 400, NAME_MESSAGE);
      const after = (await api.call('GET', '/materials?page_size=100')).json.data.total as number;
      assert.equal(after, before);
    });
  });
}

function pick(source: Record<string, unknown>, like: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(like).map((key) => [key, source[key]]));
}
