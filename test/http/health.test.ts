// `/health` answered 200 while the database was unreachable, so nothing in front of the service could tell a
// process that can serve from one that answers 503 to everything. It now checks the database, the job queue's
// Redis and the file store, and names the ones that do not answer. (A SQLite file on the process's own disk has
// no outage to show: its readers are never blocked.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fs from 'node:fs';
import path from 'node:path';
import { testDialects } from '../helpers/databases.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { proxyInFront, throughProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const health = (testApp: TestApp) => testApp.app.inject({ method: 'GET', url: '/health' });

for (const dialect of testDialects()) {
  void describe(`/health with the database answering (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => void (testApp = await createTestApp(dialect)));
    after(() => testApp.close());

    void it('answers 200 {"status":"ok"}, without a token', async () => {
      const response = await health(testApp);
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '{"status":"ok"}');
    });

    void it('answers 503 naming storage while the file store cannot be read, and 200 once it can', async () => {
      // A plain file where the store's folders go: every lookup under it fails (ENOTDIR), as on a broken mount.
      const blocker = path.join(testApp.blobs.localRoot!, 'health');
      fs.writeFileSync(blocker, 'not a folder');
      try {
        const down = await health(testApp);
        assert.equal(down.statusCode, 503, down.body);
        assert.deepEqual(down.json(), { status: 'unavailable', failed: ['storage'] });
      } finally {
        fs.rmSync(blocker);
      }
      assert.equal((await health(testApp)).statusCode, 200);
    });
  });

  void describe(`/health with the job queue's Redis stopped (${dialect})`, { skip: skipWithoutRedis }, () => {
    let url: string;
    let prefix: string;
    let proxy: TcpProxy;
    let testApp: TestApp;
    before(async () => {
      url = testRedisUrl();
      prefix = uniqueRedisPrefix('health');
      let through: string;
      ({ proxy, url: through } = await proxyInFront(url, 6379));
      testApp = await createTestApp(dialect, {
        REDIS_URL: through,
        REDIS_PREFIX: prefix,
        DATABASE_CONNECT_TIMEOUT_SECONDS: '1',
      });
    });
    after(async () => {
      await proxy.restore().catch(() => {});
      await testApp.close();
      await proxy.close();
      await removeRedisKeys(url, prefix);
    });

    void it('answers 503 naming the queue within the timeout, and 200 once Redis is back', async () => {
      assert.equal((await health(testApp)).statusCode, 200);
      await proxy.cut();
      const started = Date.now();
      const down = await health(testApp);
      assert.ok(Date.now() - started < 3_000, `answered after ${Date.now() - started} ms`);
      assert.equal(down.statusCode, 503, down.body);
      assert.deepEqual(down.json(), { status: 'unavailable', failed: ['queue'] });

      // The resumable upload endpoint, whose locks live in the same Redis, names it too, not the storage.
      const created = await testApp.app.inject({
        method: 'POST',
        url: '/api/uploads',
        headers: { ...testApp.auth, 'tus-resumable': '1.0.0', 'upload-length': '10' },
      });
      assert.equal(created.statusCode, 503, created.body);
      assert.equal(created.body, 'job queue unavailable, try again shortly\n');

      await proxy.restore();
      const deadline = Date.now() + 15_000;
      let up = await health(testApp);
      while (up.statusCode !== 200 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        up = await health(testApp);
      }
      assert.equal(up.statusCode, 200, up.body);
    });
  });
}

if (testDialects().includes('postgres')) {
  void describe('/health with PostgreSQL unreachable', () => {
    let proxy: TcpProxy;
    let testApp: TestApp;
    before(async () => {
      ({ proxy } = await proxyInFront(process.env.TEST_DATABASE_URL!, 5432));
      testApp = await createTestApp(
        'postgres',
        { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' },
        { rewriteDatabaseUrl: (url) => throughProxy(url, proxy) },
      );
    });
    after(async () => {
      await proxy.restore().catch(() => {});
      await testApp.close();
      await proxy.close();
    });

    void it('answers 503 naming the database within the connect timeout, and 200 once it is back', async () => {
      assert.equal((await health(testApp)).statusCode, 200);
      await proxy.cut();
      const started = Date.now();
      const down = await health(testApp);
      assert.ok(Date.now() - started < 5_000, `answered after ${Date.now() - started} ms`);
      assert.equal(down.statusCode, 503);
      assert.deepEqual(down.json(), { status: 'unavailable', failed: ['database'] });
      await proxy.restore();
      const up = await health(testApp);
      assert.equal(up.statusCode, 200, up.body);
      assert.deepEqual(up.json(), { status: 'ok' });
    });
  });
}
