// `/health` answered 200 while the database was unreachable, so nothing in front of the service could tell a
// process that can serve from one that answers 503 to everything. It now checks the database. (A SQLite file on
// the process's own disk has no outage to show: its readers are never blocked.)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { createTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
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
  });
}

if (testDialects().includes('postgres')) {
  void describe('/health with PostgreSQL unreachable', () => {
    let proxy: TcpProxy;
    let testApp: TestApp;
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
