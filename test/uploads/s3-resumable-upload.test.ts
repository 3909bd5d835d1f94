// Resumable uploads on S3 storage (s3rver) with Redis, as two API processes sharing the bucket and the Redis
// prefix would run them: an upload begun on one app, cut at half and resumed on the other, made a model that
// converts; upload objects under the installation's prefix only; the sweep removing abandoned and expired uploads
// (multipart uploads aborted, cached metadata dropped) until no upload object is left.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import { JobName } from '../../src/jobs/job-types.ts';
import { S3UploadStore } from '../../src/uploads/s3-upload-store.ts';
import { sweepExpiredUploads } from '../../src/uploads/sweep-uploads.ts';
import { STORAGE_UNAVAILABLE } from '../../src/storage/storage-unavailable.ts';
import { UPLOAD_BUSY } from '../../src/uploads/finished-uploads.ts';
import { openResumableUploads, type ResumableUploads } from '../../src/uploads/tus-store.ts';
import { writeGridGlb } from '../system/grid-model.ts';
import { catalogApi, catalogError, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { tusClient, uploadIdOf, type TusClient } from '../helpers/tus-client.ts';
import { waitForNoLiveJob, waitForStatus } from '../helpers/wait-for-status.ts';

const PREFIX = 'site-a';
const TRUCK = 'glb/CesiumMilkTruck.glb';
const HOUR_MS = 3_600_000;

/** A body sent as a stream of 256 KiB pieces, as a real client sends a large chunk. */
function inPieces(bytes: Buffer): Readable {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += 256 * 1024) pieces.push(bytes.subarray(at, at + 256 * 1024));
  return Readable.from(pieces);
}

for (const dialect of testDialects()) {
  void describe(`resumable uploads on S3 with Redis (${dialect})`, { skip: skipWithoutRedis }, () => {
    const redisUrl = testRedisUrl();
    const redisPrefix = uniqueRedisPrefix('s3-tus');
    let s3: TestS3Server;
    let first: TestApp;
    let second: TestApp;
    let tusFirst: TusClient;
    let tusSecond: TusClient;
    let bucket: S3Client;
    let redis: Redis;
    let scratch: string;

    before(async () => {
      s3 = await startS3Server();
      Object.assign(process.env, S3RVER_CREDENTIALS);
      const env = { ...s3.env(PREFIX), REDIS_URL: redisUrl, REDIS_PREFIX: redisPrefix };
      first = await createTestApp(dialect, env);
      second = await createTestApp(dialect, env);
      tusFirst = tusClient(await first.app.listen({ port: 0, host: '127.0.0.1' }), first.auth);
      tusSecond = tusClient(await second.app.listen({ port: 0, host: '127.0.0.1' }), second.auth);
      bucket = new S3Client({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      redis = new Redis(redisUrl);
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-s3-tus-'));
    });
    after(async () => {
      bucket.destroy();
      redis.disconnect();
      await first.close();
      await second.close();
      await s3.close();
      await removeRedisKeys(redisUrl, redisPrefix);
      fs.rmSync(scratch, { recursive: true, force: true });
    });

    /** Every key in the bucket (the whole bucket, to see that nothing lands outside the prefix). */
    const bucketKeys = async (): Promise<string[]> => {
      const page = await bucket.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
      return (page.Contents ?? []).map((object) => object.Key!).sort();
    };
    /** The store as every API process of the installation opens it. */
    const openStore = async (testApp: TestApp): Promise<ResumableUploads & { store: S3UploadStore }> => {
      const opened = await openResumableUploads(testApp.config);
      assert.ok(opened.store instanceof S3UploadStore, 'S3 storage gives resumable uploads the S3 store');
      return opened as ResumableUploads & { store: S3UploadStore };
    };

    void it('resumes on one process an upload begun on another and makes it a model that converts', async () => {
      const bytes = sample(TRUCK);
      const half = Math.floor(bytes.length / 2);
      const created = await tusFirst.create(bytes.length, { filename: 'CesiumMilkTruck.glb' });
      assert.equal(created.status, 201, created.text);
      assert.match(created.location, /^\/api\/uploads\/[0-9a-f]{32}$/, 'clients see no key prefix');
      const id = uploadIdOf(created.location);
      const key = `${PREFIX}/uploads/${id}`;
      assert.deepEqual(await bucketKeys(), [`${key}.info`], 'the upload lives under the installation prefix');

      const opening = await tusFirst.patch(created.location, 0, bytes.subarray(0, 64 * 1024));
      assert.equal(opening?.status, 204, opening?.text);
      // The connection goes at half of the file; the store keeps what arrived.
      const cut = await tusFirst.patch(created.location, 64 * 1024, bytes.subarray(64 * 1024), {
        dropAfterBytes: half - 64 * 1024,
      });
      assert.equal(cut, undefined);

      // The balancer sends the rest to the other process, which knows the upload from the bucket and Redis.
      const resumed = await tusSecond.head(created.location);
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.headers['upload-length'], String(bytes.length));
      assert.ok(
        resumed.offset > 64 * 1024 && resumed.offset <= half,
        `the bytes before the cut were kept (offset ${resumed.offset}, cut at ${half})`,
      );
      const early = await catalogApi(second.app, second.auth).call('POST', '', { upload_id: id });
      assert.equal(early.status, 409, early.text);
      const rest = await tusSecond.patch(created.location, resumed.offset, bytes.subarray(resumed.offset));
      assert.equal(rest?.status, 204, rest?.text);
      assert.equal(
        (await tusFirst.head(created.location)).offset,
        bytes.length,
        'both processes see it done',
      );

      // A second request for the same upload on the other process, while the first still holds it, is refused.
      const held = await redis.set(`${redisPrefix}:upload-hold:${key}`, 'test', 'PX', 60_000, 'NX');
      assert.equal(held, 'OK');
      const busy = await catalogApi(first.app, first.auth).call('POST', '', { upload_id: id });
      assert.equal(busy.status, 409, busy.text);
      assert.equal(busy.text, catalogError(UPLOAD_BUSY));
      await redis.del(`${redisPrefix}:upload-hold:${key}`);

      const made = await catalogApi(first.app, first.auth).call('POST', '', { upload_id: id, name: 'Truck' });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.json.data.file_size, bytes.length);
      assert.equal(made.json.data.original_filename, 'CesiumMilkTruck.glb');
      const uploadKeys = (await bucketKeys()).filter((name) => name.startsWith(`${PREFIX}/uploads/`));
      assert.deepEqual(uploadKeys, [], 'the upload is removed once it is a model');
      assert.equal((await tusSecond.head(created.location)).status, 404);

      first.startJobRunner();
      const converted = await waitForStatus(first.app, made.json.data.id, ['completed', 'failed']);
      assert.equal(converted.status, 'completed', converted.error as string);
      const deleted = await catalogApi(first.app, first.auth).call('DELETE', `/${converted.id}`);
      assert.equal(deleted.status, 200, deleted.text);
    });

    void it('answers the committed model when removing the upload times out, and the retry gives the same', async () => {
      // The reported fault: Redis frozen while the used upload was removed ("remove upload failed: Command timed
      // out") turned a committed model into a 503, and the retry made a second model.
      const bytes = sample(TRUCK);
      const created = await tusFirst.create(bytes.length, { filename: 'frozen.glb' });
      assert.equal(created.status, 201, created.text);
      assert.equal((await tusFirst.patch(created.location, 0, bytes))?.status, 204);
      const id = uploadIdOf(created.location);
      const api = catalogApi(first.app, first.auth);
      const before = (await api.call('GET', '')).json.meta.total as number;
      const realRemove = S3UploadStore.prototype.remove;
      S3UploadStore.prototype.remove = async () => {
        throw new Error('Command timed out');
      };
      let made;
      try {
        made = await api.call('POST', '', { upload_id: id });
      } finally {
        S3UploadStore.prototype.remove = realRemove;
      }
      assert.equal(made.status, 201, made.text);
      assert.equal((await tusSecond.head(created.location)).status, 200, 'the upload was left behind');

      const retry = await api.call('POST', '', { upload_id: id });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.json.data.id, made.json.data.id);
      assert.equal((await api.call('GET', '')).json.meta.total, before + 1);
      assert.equal((await tusSecond.head(created.location)).status, 404, 'the retry removed the upload');
      assert.equal((await api.call('DELETE', `/${made.json.data.id}`)).status, 200);
      // Its conversion may still run; it removes what it stored once it finds the model gone.
      await waitForNoLiveJob(first.queue, made.json.data.id, JobName.ConvertModel);
    });

    void it('answers 503 with a message while S3 is down, and works again once it is back', async () => {
      await s3.stop();
      try {
        const refused = await tusFirst.create(10, { filename: 'outage.stl' });
        assert.equal(refused.status, 503);
        assert.equal(refused.text, `${STORAGE_UNAVAILABLE}\n`);
        const health = await first.app.inject({ method: 'GET', url: '/health' });
        assert.equal(health.statusCode, 503, health.body);
        assert.deepEqual(health.json(), { status: 'unavailable', failed: ['storage'] });
      } finally {
        await s3.restart();
      }
      const created = await tusFirst.create(6, { filename: 'after.stl' });
      assert.equal(created.status, 201, created.text);
      assert.equal((await tusSecond.patch(created.location, 0, Buffer.from('solid\n')))?.status, 204);
    });

    void it('sweeps abandoned and never-taken uploads once expired, multipart uploads included', async () => {
      // Large enough for whole S3 parts (8 MiB), so the abandoned upload holds a real multipart upload.
      const gridFile = path.join(scratch, 'grid.glb');
      await writeGridGlb(gridFile, 700);
      const grid = fs.readFileSync(gridFile);
      assert.ok(grid.length > 12 * 1024 * 1024, `grid of ${grid.length} bytes`);
      const abandoned = await tusFirst.create(grid.length, { filename: 'grid.glb' });
      assert.equal(abandoned.status, 201, abandoned.text);
      const nineMiB = grid.subarray(0, 9 * 1024 * 1024);
      const sent = await tusFirst.patch(abandoned.location, 0, inPieces(nineMiB), {
        contentLength: nineMiB.length,
      });
      assert.equal(sent?.status, 204, sent?.text);
      const finished = await tusSecond.create(6, { filename: 'never-taken.stl' });
      assert.equal((await tusSecond.patch(finished.location, 0, Buffer.from('solid\n')))?.status, 204);
      const abandonedKey = `${PREFIX}/uploads/${uploadIdOf(abandoned.location)}`;
      assert.ok(await redis.exists(`${redisPrefix}:tus:${abandonedKey}`), 'metadata cached in Redis');

      const { store, close } = await openStore(second);
      assert.deepEqual(await sweepExpiredUploads(store, 24 * HOUR_MS), [], 'nothing has expired yet');
      const removed = await sweepExpiredUploads(store, 24 * HOUR_MS, Date.now() + 25 * HOUR_MS);
      await close();
      assert.ok(removed.includes(abandonedKey), removed.join());
      assert.ok(removed.includes(`${PREFIX}/uploads/${uploadIdOf(finished.location)}`), removed.join());
      assert.deepEqual(await bucketKeys(), [], 'no object of the uploads, nor of the deleted model, is left');
      assert.equal(await redis.exists(`${redisPrefix}:tus:${abandonedKey}`), 0, 'cached metadata dropped');
      assert.equal((await tusFirst.head(abandoned.location)).status, 404);
      const answer = await tusSecond.patch(
        abandoned.location,
        nineMiB.length,
        grid.subarray(nineMiB.length, nineMiB.length + 1),
      );
      assert.equal(answer?.status, 404, 'an expired upload cannot be resumed');
    });
  });
}
