// A Redis outage is the job queue's, and is named so: an export asked for while Redis is away answers 503
// `job queue unavailable, try again shortly` (never "storage" or "database"), and so does a store call that failed
// on Redis (the holds on finished uploads live there) whatever wording ioredis used.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { CONNECTION_CLOSED_ERROR_MSG } from 'ioredis/built/utils/index.js';
import { classifyError } from '../../src/http/classify-error.ts';
import { openRedis } from '../../src/jobs/redis-connection.ts';
import { QueueUnavailableError } from '../../src/jobs/queue-unavailable.ts';
import { StorageUnavailableError } from '../../src/storage/storage-unavailable.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { proxyInFront, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const QUEUE_UNAVAILABLE = 'job queue unavailable, try again shortly';

for (const dialect of testDialects()) {
  void describe(`a Redis outage (${dialect})`, { skip: skipWithoutRedis }, () => {
    let url: string;
    let prefix: string;
    let proxy: TcpProxy;
    let testApp: TestApp;

    before(async () => {
      url = testRedisUrl();
      prefix = uniqueRedisPrefix('outage');
      let through: string;
      ({ proxy, url: through } = await proxyInFront(url, 6379));
      testApp = await createTestApp(dialect, { REDIS_URL: through, REDIS_PREFIX: prefix });
    });
    after(async () => {
      await testApp.close();
      await proxy.close();
      await removeRedisKeys(url, prefix);
    });

    void it('answers an export asked for while Redis is away with 503 naming the job queue', async () => {
      const worker = testApp.startJobRunner(async () => Buffer.from('not rendered'));
      const api = catalogApi(testApp.app, testApp.auth);
      const model = await api.create('two.glb', await twoPartGlb('outage'), { name: 'Outage' });
      await waitForStatus(testApp.app, model.id, ['completed']);
      await worker.stop();

      await proxy.cut();
      const answer = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${model.id}/export?format=stl`,
        headers: testApp.auth,
      });
      assert.equal(answer.statusCode, 503, answer.body);
      assert.equal(answer.body, catalogError(QUEUE_UNAVAILABLE));
      assert.equal(answer.headers['retry-after'], '5');
      await proxy.restore();
    });
  });
}

void describe('the message of a Redis failure', () => {
  let redis: Redis;
  before(() => {
    // A producer connection to a port nothing listens on fails its commands the way a Redis outage does.
    redis = openRedis('redis://127.0.0.1:1', { role: 'producer', commandTimeoutMs: 500 });
  });
  after(() => redis.disconnect());

  void it('names the job queue for the errors ioredis gives while Redis is away, wrapped or not', async () => {
    const failure = await redis.set('k', 'v').then(
      () => assert.fail('a command reached a closed port'),
      (error: unknown) => error,
    );
    for (const error of [
      new StorageUnavailableError('hold upload', failure),
      new QueueUnavailableError(failure),
    ]) {
      assert.deepEqual(classifyError(error, 'Internal server error'), {
        statusCode: 503,
        message: QUEUE_UNAVAILABLE,
        expected: false,
      });
    }
    // The words of a command whose connection dropped under it, which read like the database driver's.
    const closed = new Error(CONNECTION_CLOSED_ERROR_MSG);
    assert.equal(classifyError(new QueueUnavailableError(closed), 'x').message, QUEUE_UNAVAILABLE);
    assert.equal(
      classifyError(new StorageUnavailableError('hold upload', closed), 'x').message,
      QUEUE_UNAVAILABLE,
    );
  });

  void it('keeps `storage unavailable` for a store failure that is not Redis', () => {
    const s3 = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9000'), { code: 'ECONNREFUSED' });
    assert.equal(
      classifyError(new StorageUnavailableError('upload', s3), 'x').message,
      'storage unavailable, try again shortly',
    );
  });
});
