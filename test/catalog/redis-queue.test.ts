import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { createCatalogService } from '../../src/catalog/catalog-service.ts';
import { startJobRunner } from '../../src/job-runner.ts';
import { openBullmqQueue } from '../../src/jobs/bullmq-queue.ts';
import type { JobQueue, QueueConsumer } from '../../src/jobs/queue.ts';
import { createLogger } from '../../src/logger.ts';
import { catalogApi, catalogError, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { proxyInFront, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const MODEL = 'stl/cyl_w_rect_hole.stl';
const CONVERSION_TIMEOUT_MS = 120_000;

for (const dialect of testDialects()) {
  void describe(`the catalog on the Redis queue (${dialect})`, { skip: skipWithoutRedis }, () => {
    let url: string;
    let prefix: string;
    let testApp: TestApp | undefined;
    let extra: { queues: JobQueue[]; workers: QueueConsumer[]; proxies: TcpProxy[] };

    beforeEach(() => {
      url = testRedisUrl();
      prefix = uniqueRedisPrefix('catalog');
      extra = { queues: [], workers: [], proxies: [] };
    });

    afterEach(async () => {
      await Promise.all(extra.workers.map((worker) => worker.stop()));
      await Promise.all(extra.queues.map((queue) => queue.close()));
      await testApp?.close();
      await Promise.all(extra.proxies.map((proxy) => proxy.close()));
      await removeRedisKeys(url, prefix);
    });

    void it('converts a model whose process died between committing the upload and relaying its job', async () => {
      testApp = await createTestApp(dialect, { REDIS_URL: url, REDIS_PREFIX: prefix });
      const { database, blobs, config } = testApp;
      const logger = createLogger('silent');
      // The process dies right after the commit and the file move: the promote that would relay the job never runs.
      const dying: JobQueue = { ...testApp.queue, promote: async () => {} };
      const catalog = createCatalogService({
        database,
        blobs,
        queue: dying,
        logger,
        events: testApp.services.events,
      });
      const upload = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-upload-')), 'part.stl');
      fs.writeFileSync(upload, sample(MODEL));
      const model = await catalog.upload({
        file: { path: upload, filename: 'part.stl', size: fs.statSync(upload).size },
      });
      const waiting = await database.db.selectFrom('job_outbox').selectAll().execute();
      assert.deepEqual(
        waiting.map((row) => [row.name, JSON.parse(row.payload)]),
        [['convert-model', { model_id: model.id }]],
        'the job committed with the model, in the outbox',
      );
      await testApp.queue.close();

      // The upload's hold runs out (a minute in production) while no process is there to relay the job.
      await database.db
        .updateTable('job_outbox')
        .set({ run_at: new Date(0).toISOString() })
        .execute();
      const next = await openBullmqQueue(database, { redisUrl: url, prefix, pollMs: 50, logger });
      extra.queues.push(next);
      extra.workers.push(
        startJobRunner(config, { ...testApp.services, queue: next, close: async () => {} }, logger),
      );
      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(done.status, 'completed', done.error);
      assert.equal((await database.db.selectFrom('job_outbox').selectAll().execute()).length, 0);
    });

    void it('answers 503 with a message while Redis is away, takes uploads into the outbox, and converts them after', async () => {
      const { proxy, url: through } = await proxyInFront(url, 6379);
      extra.proxies.push(proxy);
      testApp = await createTestApp(dialect, {
        REDIS_URL: through,
        REDIS_PREFIX: prefix,
        DATABASE_CONNECT_TIMEOUT_SECONDS: '1',
      });
      const api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
      const before = await api.create('before.stl', sample(MODEL));

      await proxy.cut();
      // Removing a model cancels its queued jobs in Redis: refused as a whole, the model stays.
      const removal = await api.call('DELETE', `/${before.id}`);
      assert.equal(removal.status, 503, removal.text);
      assert.equal(removal.text, catalogError('job queue unavailable, try again shortly'));
      assert.equal((await api.call('GET', `/${before.id}`)).status, 200);
      // An upload commits its job to the outbox; it is relayed once Redis answers again.
      const during = await api.create('during.stl', sample(MODEL));
      assert.equal(during.status, 'pending');

      await proxy.restore();
      for (const id of [before.id, during.id]) {
        const done = await waitForStatus(testApp.app, id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
        assert.equal(done.status, 'completed', done.error);
      }
      assert.equal((await api.call('DELETE', `/${before.id}`)).status, 200);
    });
  });
}
