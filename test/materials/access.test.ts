import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { errorText, materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Every route of the material service under /api/v1, with a body where the route takes one.
const ROUTES: [method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: object][] = [
  ['GET', '/api/v1/materials'],
  ['POST', '/api/v1/materials', { name: 'x' }],
  ['GET', '/api/v1/materials/1'],
  ['PUT', '/api/v1/materials/1', { name: 'x' }],
  ['DELETE', '/api/v1/materials/1'],
  ['POST', '/api/v1/materials/1/bindings', { group_ids: ['g'] }],
  ['DELETE', '/api/v1/materials/1/bindings', { group_ids: ['g'] }],
  ['GET', '/api/v1/materials/1/groups'],
  ['POST', '/api/v1/groups/materials', { group_ids: ['g'] }],
  ['GET', '/api/v1/no-such-route'],
];

for (const dialect of testDialects()) {
  void describe(`tokens, unknown routes, health and docs (${dialect})`, () => {
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
          assert.equal(response.body, errorText(401, 'missing API token'));
        }
      }
    });

    void it('answers 401 `invalid API token` on every route for a wrong token', async () => {
      const wrong = ['wrong', `${testApp.auth['x-api-token']}x`, testApp.auth['x-api-token']!.toUpperCase()];
      for (const token of wrong) {
        for (const [method, url, body] of ROUTES) {
          const response = await send(method, url, { 'x-api-token': token }, body);
          assert.equal(response.statusCode, 401, `${method} ${url}`);
          assert.equal(response.body, errorText(401, 'invalid API token'));
        }
      }
    });

    void it('changes nothing for a request refused for its token', async () => {
      await send('POST', '/api/v1/materials', { 'x-api-token': 'wrong' }, { name: 'sneaky' });
      const list = await send('GET', '/api/v1/materials', testApp.auth);
      assert.equal(JSON.parse(list.body).data.total, 0);
    });

    void it('accepts the token whatever the case of the header name', async () => {
      const response = await send('GET', '/api/v1/materials', {
        'X-API-Token': testApp.auth['x-api-token']!,
      });
      assert.equal(response.statusCode, 200);
    });

    void it('answers 404 `not found` in the envelope for unknown routes and methods under /api/v1', async () => {
      const api = materialApi(testApp.app, testApp.auth);
      const material = await api.create({ name: 'x' });
      for (const [method, url] of [
        ['GET', '/nope'],
        ['GET', '/'],
        ['POST', '/materials/1/nope'],
        ['PATCH', `/materials/${material.id}`],
        ['GET', '/groups/materials'],
        ['GET', '/material'],
      ]) {
        const answer = await api.call(method!, url!);
        assert.equal(answer.status, 404, `${method} ${url}`);
        assert.equal(answer.text, errorText(404, 'not found'));
      }
    });

    void it('serves /health without a token, outside the envelope', async () => {
      for (const headers of [{}, { 'x-api-token': 'wrong' }] as Record<string, string>[]) {
        const response = await send('GET', '/health', headers);
        assert.equal(response.statusCode, 200);
        assert.equal(response.body, '{"status":"ok"}');
      }
    });

    void it('publishes an OpenAPI 3 document with the token scheme and every material route', async () => {
      const response = await send('GET', '/docs/json', {});
      assert.equal(response.statusCode, 200);
      const doc = JSON.parse(response.body);
      assert.match(doc.openapi, /^3\./);
      assert.deepEqual(doc.components.securitySchemes.apiToken, {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Token',
      });
      assert.deepEqual(doc.security, [{ apiToken: [] }]);
      const operations = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(
        ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      );
      for (const expected of [
        'GET /api/v1/materials',
        'POST /api/v1/materials',
        'GET /api/v1/materials/{id}',
        'PUT /api/v1/materials/{id}',
        'DELETE /api/v1/materials/{id}',
        'POST /api/v1/materials/{id}/bindings',
        'DELETE /api/v1/materials/{id}/bindings',
        'GET /api/v1/materials/{id}/groups',
        'POST /api/v1/groups/materials',
        'GET /health',
      ]) {
        assert.ok(operations.includes(expected), `${expected} is documented`);
      }
      assert.deepEqual(doc.paths['/health'].get.security, []);
      const create = doc.paths['/api/v1/materials'].post;
      assert.ok(create.responses['201'], 'create documents its 201');
      assert.ok(create.requestBody.content['application/json'].schema.properties.diffuse_r);
    });
  });

  void describe(`unexpected failures (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await createTestApp(dialect);
    });
    after(() => testApp.close());

    void it('answers 500 `internal server error` without details when the database is gone', async () => {
      // A closed connection is a real fault of the kind the error handler must hide.
      await testApp.database.close();
      const api = materialApi(testApp.app, testApp.auth);
      for (const [method, url, body] of [
        ['GET', '/materials', undefined],
        ['POST', '/materials', { name: 'x' }],
        ['POST', '/groups/materials', { group_ids: ['g'] }],
      ] as const) {
        const answer = await api.call(method, url, body);
        assert.equal(answer.status, 500, `${method} ${url}: ${answer.text}`);
        assert.equal(answer.text, errorText(500, 'internal server error'));
      }
    });
  });
}
