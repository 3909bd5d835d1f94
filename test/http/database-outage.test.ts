// A 10 s database outage used to answer 500 to every request. Now every route that needs the database answers
// 503 with a message and Retry-After while it is unreachable, and recovers by itself when it is back.
// PostgreSQL is made unreachable by cutting a TCP proxy in front of it (the shared server keeps running);
// SQLite's counterpart is another process holding the write lock past the busy timeout.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { DATABASE_UNAVAILABLE } from '../../src/db/unavailable.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { proxyInFront, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
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

/**
 * Compares storage with the database: every model folder belongs to a row, every row's upload is stored, and no
 * upload is left half-received. A failed upload must not leave its file behind.
 */
async function assertNothingOrphaned(testApp: TestApp): Promise<void> {
  const rows = await testApp.database.db.selectFrom('models').select(['id', 'source_key']).execute();
  const modelsDir = path.join(testApp.config.dataDir, 'files', 'models');
  const folders = fs.existsSync(modelsDir) ? fs.readdirSync(modelsDir) : [];
  assert.deepEqual(folders.sort(), rows.map((row) => row.id).sort(), 'one stored folder per model row');
  for (const row of rows) {
    assert.ok(
      fs.existsSync(path.join(testApp.config.dataDir, 'files', row.source_key)),
      `${row.id}'s upload`,
    );
  }
  const uploadsDir = path.join(testApp.config.dataDir, 'tmp', 'uploads');
  const leftovers = fs.existsSync(uploadsDir) ? fs.readdirSync(uploadsDir, { recursive: true }) : [];
  const files = leftovers.filter((entry) => fs.statSync(path.join(uploadsDir, String(entry))).isFile());
  assert.deepEqual(files, [], 'no partial upload left');
}

if (testDialects().includes('postgres')) {
  void describe('an unreachable PostgreSQL', () => {
    let proxy: TcpProxy;
    let testApp: TestApp;
    let modelId: string;
    before(async () => {
      ({ proxy } = await proxyInFront(process.env.TEST_DATABASE_URL!, 5432));
      testApp = await createTestApp(
        'postgres',
        { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' },
        { rewriteDatabaseUrl: (url) => throughProxy(url, proxy) },
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
      for (let i = 0; i < 5; i++) {
        const upload = await catalogApi(testApp.app, testApp.auth).upload(`tri${i}.obj`, OBJ);
        assert.equal(upload.status, 503, upload.text);
        assert.equal(upload.text, catalogUnavailable);
      }
      assert.ok(Date.now() - started < 30_000, 'each answer comes within the connect timeout');

      await proxy.restore();
      const back = await call(testApp, 'GET', `/api/models/${modelId}`);
      assert.equal(back.statusCode, 200, back.body);
      assert.equal(JSON.parse(back.body).data.name, 'tri', 'nothing was half-written during the outage');
      assert.equal((await call(testApp, 'GET', '/api/v1/materials')).statusCode, 200);
      await assertNothingOrphaned(testApp);
    });
  });
}

if (testDialects().includes('postgres')) {
  void describe('a PostgreSQL pool with every connection taken', () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await createTestApp('postgres', { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' });
    });
    after(() => testApp.close());

    void it('answers 503 after the connect timeout instead of queueing for ever, then serves again', async () => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let holding = 0;
      // Ten transactions (the pool's size) that keep their connections until released.
      const holders = Array.from({ length: 10 }, () =>
        testApp.database.db.transaction().execute(async (trx) => {
          await trx.selectFrom('materials').select('id').execute();
          holding++;
          await released;
        }),
      );
      while (holding < 10) await new Promise((resolve) => setTimeout(resolve, 20));
      const started = Date.now();
      const refused = await call(testApp, 'GET', '/api/v1/materials');
      const waited = Date.now() - started;
      release();
      await Promise.all(holders);
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.body, materialUnavailable);
      assert.ok(waited >= 900 && waited < 10_000, `gave up after ${waited} ms`);
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
    await assertNothingOrphaned(testApp);
  });
});
