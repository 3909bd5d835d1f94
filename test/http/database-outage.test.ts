// A 10 s database outage used to answer 500 to every request. Now every route that needs the database answers
// 503 with a message and Retry-After while it is unreachable, and recovers by itself when it is back.
// PostgreSQL is made unreachable by cutting a TCP proxy in front of it (the shared server keeps running);
// SQLite's counterpart is another process holding the write lock past the busy timeout.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { DATABASE_UNAVAILABLE } from '../../src/db/unavailable.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const materialUnavailable = JSON.stringify({ code: 503, message: DATABASE_UNAVAILABLE });
const catalogUnavailable = catalogError(DATABASE_UNAVAILABLE);

function call(testApp: TestApp, method: string, url: string, body?: unknown) {
  return testApp.app.inject({
    method: method as 'GET',
    url,
    headers: body === undefined ? testApp.auth : { ...testApp.auth, 'content-type': 'application/json' },
    payload: body === undefined ? undefined : JSON.stringify(body),
  });
}

if (testDialects().includes('postgres')) {
  void describe('an unreachable PostgreSQL', () => {
    let proxy: TcpProxy;
    let testApp: TestApp;
    let modelId: string;
    before(async () => {
      const server = new URL(process.env.TEST_DATABASE_URL!);
      proxy = await createTcpProxy(server.hostname, Number(server.port || 5432));
      testApp = await createTestApp(
        'postgres',
        { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' },
        {
          rewriteDatabaseUrl(url) {
            const proxied = new URL(url);
            proxied.hostname = '127.0.0.1';
            proxied.port = String(proxy.port);
            return proxied.toString();
          },
        },
      );
      assert.equal((await call(testApp, 'POST', '/api/v1/materials', { name: 'Steel' })).statusCode, 201);
      modelId = (await catalogApi(testApp.app, testApp.auth).create('tri.obj', OBJ)).id;
    });
    after(async () => {
      await proxy.restore().catch(() => {});
      await testApp.close();
      await proxy.close();
    });

    void it('answers 503 with a message on every kind of route while it is cut, then recovers', async () => {
      await proxy.cut();
      const started = Date.now();
      const materialCalls: [string, string, unknown?][] = [
        ['GET', '/api/v1/materials'],
        ['POST', '/api/v1/materials', { name: 'Copper' }],
        ['GET', '/api/v1/materials/1'],
        ['POST', '/api/v1/materials/1/bindings', { group_ids: ['g1', 'g2'] }],
        ['DELETE', '/api/v1/materials/1/bindings', { group_ids: ['g1'] }],
        ['POST', '/api/v1/groups/materials', { group_ids: ['g1'], include_default: true }],
      ];
      for (const [method, url, body] of materialCalls) {
        const response = await call(testApp, method, url, body);
        assert.equal(response.statusCode, 503, `${method} ${url}: ${response.body}`);
        assert.equal(response.body, materialUnavailable);
        assert.equal(response.headers['retry-after'], '5');
      }
      const catalogCalls: [string, string, unknown?][] = [
        ['GET', '/api/models'],
        ['GET', '/api/models?search=tri'],
        ['GET', `/api/models/${modelId}`],
        ['GET', `/api/models/${modelId}/parts`],
        ['PATCH', `/api/models/${modelId}`, { name: 'Renamed' }],
        ['POST', `/api/models/${modelId}/reprocess`],
        ['DELETE', `/api/models/${modelId}`],
      ];
      for (const [method, url, body] of catalogCalls) {
        const response = await call(testApp, method, url, body);
        assert.equal(response.statusCode, 503, `${method} ${url}: ${response.body}`);
        assert.equal(response.body, catalogUnavailable);
      }
      const upload = await catalogApi(testApp.app, testApp.auth).upload('tri.obj', OBJ);
      assert.equal(upload.status, 503, upload.text);
      assert.equal(upload.text, catalogUnavailable);
      assert.ok(Date.now() - started < 20_000, 'each answer comes within the connect timeout');

      await proxy.restore();
      const back = await call(testApp, 'GET', `/api/models/${modelId}`);
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(JSON.parse(back.body).data.name, 'tri', 'nothing was half-written during the outage');
      assert.equal((await call(testApp, 'GET', '/api/v1/materials')).statusCode, 200);
    });
  });
}

void describe('a SQLite database locked by another writer', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await createTestApp('sqlite', { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' });
  });
  after(() => testApp.close());

  void it('answers 503 to writes after the busy timeout, and serves them again once the lock is gone', async () => {
    const other = new SQLite(testApp.config.databaseUrl.slice('sqlite:'.length));
    try {
      other.exec('BEGIN EXCLUSIVE');
      const refused = await call(testApp, 'POST', '/api/v1/materials', { name: 'Copper' });
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.body, materialUnavailable);
      const upload = await catalogApi(testApp.app, testApp.auth).upload('tri.obj', OBJ);
      assert.equal(upload.status, 503, upload.text);
      assert.equal(upload.text, catalogUnavailable);
      other.exec('ROLLBACK');
    } finally {
      other.close();
    }
    assert.equal((await call(testApp, 'POST', '/api/v1/materials', { name: 'Copper' })).statusCode, 201);
  });
});
