import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { catalogApi, catalogError, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const SOME_ID = '00000000-0000-4000-8000-000000000000';

// Every catalog route, with a body where the route takes one.
const ROUTES: [method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: object][] = [
  ['GET', '/api/models'],
  ['POST', '/api/models'],
  ['GET', `/api/models/${SOME_ID}`],
  ['GET', `/api/models/${SOME_ID}/parts`],
  ['GET', `/api/models/${SOME_ID}/url`],
  ['GET', `/api/models/${SOME_ID}/lod`],
  ['GET', `/api/models/${SOME_ID}/lod/0`],
  ['PATCH', `/api/models/${SOME_ID}`, { name: 'x' }],
  ['DELETE', `/api/models/${SOME_ID}`],
  ['POST', `/api/models/${SOME_ID}/thumbnail`],
  ['POST', `/api/models/${SOME_ID}/regenerate-thumbnail`],
  ['POST', `/api/models/${SOME_ID}/reprocess`],
  ['GET', '/api/models/no/such/route'],
];

for (const dialect of testDialects()) {
  void describe(`catalog tokens, unknown routes, stored files and docs (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await createTestApp(dialect);
    });
    after(() => testApp.close());

    const send = (method: string, url: string, headers: Record<string, string>, body?: object) =>
      testApp.app.inject({
        method: method as 'GET',
        url,
        headers: body ? { ...headers, 'content-type': 'application/json' } : headers,
        payload: body ? JSON.stringify(body) : undefined,
      });

    void it('answers 401 `missing API token` on every route when the header is absent or empty', async () => {
      for (const headers of [{}, { 'x-api-token': '' }] as Record<string, string>[]) {
        for (const [method, url, body] of ROUTES) {
          const response = await send(method, url, headers, body);
          assert.equal(response.statusCode, 401, `${method} ${url}`);
          assert.equal(response.body, catalogError('missing API token'));
        }
      }
    });

    void it('answers 401 `invalid API token` on every route for a wrong token', async () => {
      const token = testApp.auth['x-api-token']!;
      for (const wrong of ['wrong', `${token}x`, token.toUpperCase()]) {
        for (const [method, url, body] of ROUTES) {
          const response = await send(method, url, { 'x-api-token': wrong }, body);
          assert.equal(response.statusCode, 401, `${method} ${url}`);
          assert.equal(response.body, catalogError('invalid API token'));
        }
      }
    });

    void it('stores nothing for an upload refused for its token', async () => {
      const form = multipartForm({}, { field: 'file', filename: 'a.obj', data: 'v 0 0 0\nf 1 1 1\n' });
      const refused = await testApp.app.inject({
        method: 'POST',
        url: '/api/models',
        headers: { 'x-api-token': 'wrong', ...form.headers },
        payload: form.payload,
      });
      assert.equal(refused.statusCode, 401);
      const list = await catalogApi(testApp.app, testApp.auth).call('GET', '');
      assert.equal(list.json.meta.total, 0);
    });

    void it('answers 404 `Not found` in the catalog envelope for unknown routes and methods', async () => {
      for (const [method, url] of [
        ['GET', '/api/models/no/such/route'],
        ['GET', `/api/models/${SOME_ID}/nope`],
        ['PUT', `/api/models/${SOME_ID}`],
        ['POST', `/api/models/${SOME_ID}`],
        ['DELETE', '/api/models'],
        ['GET', `/api/models/${SOME_ID}/lod/0/extra`],
      ]) {
        const response = await send(method!, url!, testApp.auth);
        assert.equal(response.statusCode, 404, `${method} ${url}`);
        assert.equal(response.body, catalogError('Not found'), `${method} ${url}`);
      }
    });

    void it('serves stored files at their signed /files/ URLs without a token', async () => {
      const api = catalogApi(testApp.app, testApp.auth);
      const model = await api.create('triangle.obj', 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n');
      const png = await sharp({
        create: { width: 8, height: 8, channels: 3, background: { r: 10, g: 20, b: 30 } },
      })
        .png()
        .toBuffer();
      const uploaded = await api.thumbnail(model.id, 'thumb.png', png);
      assert.equal(uploaded.status, 200, uploaded.text);
      const served = await testApp.app.inject({ method: 'GET', url: pathOf(uploaded.json.thumbnail_url) });
      assert.equal(served.statusCode, 200);
      assert.equal(served.headers['content-type'], 'image/png');
      assert.deepEqual(served.rawPayload, png);
      const unsigned = await testApp.app.inject({
        method: 'GET',
        url: new URL(uploaded.json.thumbnail_url).pathname,
      });
      assert.equal(unsigned.statusCode, 404, 'an unsigned address opens nothing');
      const missing = await testApp.app.inject({
        method: 'GET',
        url: `/files/models/${SOME_ID}/nothing.png`,
        headers: testApp.auth,
      });
      assert.equal(missing.statusCode, 404);
    });

    void it('lists every catalog path in the OpenAPI document', async () => {
      const response = await testApp.app.inject({ method: 'GET', url: '/docs/json' });
      assert.equal(response.statusCode, 200);
      const paths = JSON.parse(response.body).paths as Record<string, Record<string, unknown>>;
      const expected: [path: string, methods: string[]][] = [
        ['/api/models', ['get', 'post']],
        ['/api/models/{id}', ['get', 'patch', 'delete']],
        ['/api/models/{id}/parts', ['get']],
        ['/api/models/{id}/url', ['get']],
        ['/api/models/{id}/lod', ['get']],
        ['/api/models/{id}/lod/{level}', ['get']],
        ['/api/models/{id}/thumbnail', ['post']],
        ['/api/models/{id}/regenerate-thumbnail', ['post']],
        ['/api/models/{id}/reprocess', ['post']],
      ];
      for (const [path, methods] of expected) {
        assert.ok(paths[path], `${path} is documented`);
        for (const method of methods) assert.ok(paths[path]![method], `${method} ${path} is documented`);
      }
    });
  });
}
