// A database that stalls while a conversion ends used to leave the model `processing` for good: the stall
// watchdog took the wait on the database for a wedged importer and failed the job, and the failure handler then
// timed out on the same database and was only logged. Now the wait does not count against the conversion, and a
// final failure is written once the database answers again. PostgreSQL is stalled by a proxy in front of it that
// stops forwarding (the shared server keeps running); SQLite's counterpart is another connection holding the
// write lock.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { pino } from 'pino';
import { STRANDED_FAILURE } from '../../src/catalog/conversion/sweep-stranded-models.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
// The one statement a conversion's thumbnail sends first when it reads the materials bound to the parts.
const BOUND_MATERIALS_READ = 'from material_generation';
const ENDS_WITHIN_MS = 120_000;

/** A logger that keeps the messages it is given and calls `onLine` with each, synchronously, as it is logged. */
function watchingLogger(onLine: (message: string) => void = () => {}) {
  const messages: string[] = [];
  const logger = pino(
    { level: 'info' },
    {
      write(line: string) {
        const { msg } = JSON.parse(line) as { msg: string };
        messages.push(msg);
        onLine(msg);
      },
    },
  );
  return { logger, messages };
}

/** The address of the test database with its host and port replaced by the proxy's. */
function throughProxy(proxy: FreezableProxy) {
  return (url: string) => {
    const proxied = new URL(url);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    return proxied.toString();
  };
}

function postgresServer(): { host: string; port: number } {
  const server = new URL(process.env.TEST_DATABASE_URL!);
  return { host: server.hostname, port: Number(server.port || 5432) };
}

if (testDialects().includes('postgres')) {
  void describe('PostgreSQL stalled while a conversion renders its thumbnail', () => {
    let proxy: FreezableProxy;
    let testApp: TestApp;
    before(async () => {
      const { host, port } = postgresServer();
      proxy = await createFreezableProxy(host, port);
      // The watchdog allows 5 s of silence; the database stalls three times as long.
      testApp = await createTestApp(
        'postgres',
        { CONVERSION_STALL_SECONDS: '5' },
        { rewriteDatabaseUrl: throughProxy(proxy) },
      );
    });
    after(async () => {
      proxy.thaw();
      await testApp.close();
      await proxy.close();
    });

    void it('completes the model once the database answers, and a reprocess works after', async () => {
      const api = catalogApi(testApp.app, testApp.auth);
      const model = await api.create('tri.obj', OBJ);
      const stalled = proxy.freezeWhenSent(BOUND_MATERIALS_READ, 15_000);
      const started = Date.now();
      testApp.startJobRunner();
      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], ENDS_WITHIN_MS);
      await stalled;
      assert.equal(proxy.freezes, 1, 'the stall came during the thumbnail stage');
      assert.ok(Date.now() - started >= 15_000, 'the conversion waited out the stall');
      assert.equal(done.status, 'completed', done.error);
      assert.equal(done.error, null);
      assert.ok(done.thumbnail_url, 'the thumbnail was rendered after the wait');

      const again = await api.call('POST', `/${model.id}/reprocess`);
      assert.equal(again.status, 200, again.text);
      const redone = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], ENDS_WITHIN_MS);
      assert.equal(redone.status, 'completed', redone.error);
    });
  });

  void describe('PostgreSQL stalled when a conversion fails', () => {
    let proxy: FreezableProxy;
    let testApp: TestApp;
    const watched = watchingLogger((message) => {
      // The queue logs the failure just before it records it: the database stalls right then.
      if (message === 'job queue: attempt failed' && proxy.freezes === 0) void proxy.freezeFor(6_000);
    });
    before(async () => {
      const { host, port } = postgresServer();
      proxy = await createFreezableProxy(host, port);
      testApp = await createTestApp(
        'postgres',
        { DATABASE_CONNECT_TIMEOUT_SECONDS: '1', DATABASE_STATEMENT_TIMEOUT_SECONDS: '1' },
        { rewriteDatabaseUrl: throughProxy(proxy), logger: watched.logger },
      );
    });
    after(async () => {
      proxy.thaw();
      await testApp.close();
      await proxy.close();
    });

    void it('records the failure once the database answers again, and a reprocess works after', async () => {
      await assertFailureRecorded(testApp, watched.messages, () => proxy.freezes === 1);
    });
  });
}

void describe('SQLite locked by another writer when a conversion fails', () => {
  let testApp: TestApp;
  let locker: SQLite.Database | undefined;
  let locks = 0;
  const watched = watchingLogger((message) => {
    // Taken synchronously as the queue logs the failure, before it writes it; held for 4 s.
    if (message !== 'job queue: attempt failed' || locks > 0) return;
    locks++;
    locker = new SQLite(testApp.config.databaseUrl.slice('sqlite:'.length));
    locker.exec('BEGIN EXCLUSIVE');
    setTimeout(() => {
      locker?.exec('ROLLBACK');
      locker?.close();
      locker = undefined;
    }, 4_000);
  });
  before(async () => {
    testApp = await createTestApp(
      'sqlite',
      { DATABASE_CONNECT_TIMEOUT_SECONDS: '1' },
      { logger: watched.logger },
    );
  });
  after(async () => {
    locker?.close();
    await testApp.close();
  });

  void it('records the failure once the lock is gone, and a reprocess works after', async () => {
    await assertFailureRecorded(testApp, watched.messages, () => locks === 1);
  });
});

/**
 * Uploads a file that fails at once, lets the database go away as the failure is recorded (`wentAway` tells it
 * did), and checks the model ends `failed` with the file's own error, that writing it was retried, and that a
 * reprocess is accepted and fails the same way.
 */
async function assertFailureRecorded(
  testApp: TestApp,
  messages: string[],
  wentAway: () => boolean,
): Promise<void> {
  const api = catalogApi(testApp.app, testApp.auth);
  const model = await api.create('empty.glb', Buffer.alloc(0));
  testApp.startJobRunner();
  const failed = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], ENDS_WITHIN_MS);
  assert.ok(wentAway(), 'the database went away as the failure was recorded');
  assert.equal(failed.status, 'failed');
  assert.match(failed.error, /empty/i, 'the file’s own error, not a sweep’s');
  assert.notEqual(failed.error, STRANDED_FAILURE);
  assert.ok(
    messages.some((message) => /; retrying$/.test(message) && message.startsWith('job queue: ')),
    `a retry was logged: ${messages.join(' | ')}`,
  );
  assert.ok(!messages.includes('job queue: failure handler failed'), 'it did not give up');
  const again = await api.call('POST', `/${model.id}/reprocess`);
  assert.equal(again.status, 200, again.text);
  const refailed = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], ENDS_WITHIN_MS);
  assert.equal(refailed.error, failed.error);
}
