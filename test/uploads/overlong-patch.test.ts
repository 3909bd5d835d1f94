// A tus PATCH refused with 413 leaves its upload as it was. A PATCH that declared a deferred upload's length
// together with more bytes than that length used to be refused only after tus had saved the length, so the upload
// kept a length its client never managed to send, and the corrected PATCH was refused too.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { S3RVER_CREDENTIALS, startS3Server, type TestS3Server } from '../helpers/s3-server.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { tusClient, type TusClient } from '../helpers/tus-client.ts';

const CHUNK = { 'content-type': 'application/offset+octet-stream' };

for (const dialect of testDialects()) {
  void describe(`a tus PATCH refused with 413 (${dialect})`, () => {
    let testApp: TestApp;
    let tus: TusClient;
    before(async () => {
      testApp = await createTestApp(dialect);
      tus = tusClient(await testApp.app.listen({ port: 0, host: '127.0.0.1' }), testApp.auth);
    });
    after(() => testApp.close());

    /** An upload of deferred length holding its first 5 bytes (of `bytes`, 20 of them); its location. */
    const deferredUploadOfFive = async (bytes: Buffer): Promise<string> => {
      const created = await tus.send('POST', '/api/uploads', { 'upload-defer-length': '1' });
      assert.equal(created.status, 201, created.text);
      const location = String(created.headers.location);
      const first = await tus.send(
        'PATCH',
        location,
        { ...CHUNK, 'upload-offset': '0' },
        bytes.subarray(0, 5),
      );
      assert.equal(first.status, 204, first.text);
      return location;
    };

    /** Checks that the upload is as it was before a refused PATCH: 5 bytes, length still deferred. */
    const assertNothingKept = async (location: string): Promise<void> => {
      const after = await tus.head(location);
      assert.equal(after.status, 200, after.text);
      assert.equal(after.offset, 5, 'no byte of the refused PATCH was kept');
      assert.equal(after.headers['upload-length'], undefined, 'the refused length was not saved');
      assert.equal(after.headers['upload-defer-length'], '1');
    };

    void it('saves neither the Upload-Length nor any byte of a PATCH that overruns the length it declares', async () => {
      const bytes = Buffer.alloc(20, 7);
      const location = await deferredUploadOfFive(bytes);
      const overrun = await tus.send(
        'PATCH',
        location,
        { ...CHUNK, 'upload-offset': '5', 'upload-length': '10' },
        bytes.subarray(5),
      );
      assert.equal(overrun.status, 413, overrun.text);

      await assertNothingKept(location);

      const corrected = await tus.send(
        'PATCH',
        location,
        { ...CHUNK, 'upload-offset': '5', 'upload-length': '20' },
        bytes.subarray(5),
      );
      assert.equal(corrected.status, 204, corrected.text);
      assert.equal(corrected.headers['upload-offset'], '20');
    });

    void it('saves neither the Upload-Length nor any byte of a chunked PATCH that overruns it', async () => {
      const bytes = Buffer.alloc(20, 7);
      const location = await deferredUploadOfFive(bytes);

      // 15 bytes in three writes where the declared length leaves room for 5: tus sees the overrun only mid-body,
      // after it has stored the first write.
      const overrun = await tus.sendChunked(
        'PATCH',
        location,
        { ...CHUNK, 'upload-offset': '5', 'upload-length': '10' },
        [bytes.subarray(5, 9), bytes.subarray(9, 14), bytes.subarray(14)],
        200,
      );
      assert.equal(overrun?.status, 413, overrun?.text);

      await assertNothingKept(location);

      const corrected = await tus.sendChunked(
        'PATCH',
        location,
        { ...CHUNK, 'upload-offset': '5', 'upload-length': '20' },
        [bytes.subarray(5, 12), bytes.subarray(12)],
      );
      assert.equal(corrected?.status, 204, corrected?.text);
      assert.equal(corrected?.headers['upload-offset'], '20');
    });

    void it('keeps the offset of a PATCH that sends more than the declared length leaves room for', async () => {
      const created = await tus.create(10, { filename: 'ten.stl' });
      assert.equal(created.status, 201, created.text);
      const over = await tus.send(
        'PATCH',
        created.location,
        { ...CHUNK, 'upload-offset': '0' },
        Buffer.alloc(11),
      );
      assert.equal(over.status, 413, over.text);
      const after = await tus.head(created.location);
      assert.equal(after.offset, 0);
      assert.equal(after.headers['upload-length'], '10');
    });
  });
}

// On S3 the declared length is taken back too; the bytes that came before the overrun may stay (S3 cannot drop a
// part), so the corrected PATCH resumes from the offset the server reports, as after a PATCH cut off midway.
void describe('a chunked tus PATCH refused with 413 on S3 with Redis', { skip: skipWithoutRedis }, () => {
  const redisUrl = testRedisUrl();
  const redisPrefix = uniqueRedisPrefix('overlong-patch');
  let s3: TestS3Server;
  let testApp: TestApp;
  let tus: TusClient;
  before(async () => {
    s3 = await startS3Server();
    Object.assign(process.env, S3RVER_CREDENTIALS);
    testApp = await createTestApp('sqlite', {
      ...s3.env('site-a'),
      REDIS_URL: redisUrl,
      REDIS_PREFIX: redisPrefix,
    });
    tus = tusClient(await testApp.app.listen({ port: 0, host: '127.0.0.1' }), testApp.auth);
  });
  after(async () => {
    await testApp.close();
    await s3.close();
    await removeRedisKeys(redisUrl, redisPrefix);
  });

  void it('keeps the length deferred, in the bucket and in the shared metadata cache', async () => {
    const created = await tus.send('POST', '/api/uploads', { 'upload-defer-length': '1' });
    assert.equal(created.status, 201, created.text);
    const location = String(created.headers.location);
    const bytes = Buffer.alloc(20, 7);
    const overrun = await tus.sendChunked(
      'PATCH',
      location,
      { ...CHUNK, 'upload-offset': '0', 'upload-length': '5' },
      [bytes.subarray(0, 4), bytes.subarray(4, 12), bytes.subarray(12)],
      200,
    );
    assert.equal(overrun?.status, 413, overrun?.text);

    const after = await tus.head(location);
    assert.equal(after.status, 200, after.text);
    assert.equal(after.headers['upload-length'], undefined, 'the refused length was not saved');
    assert.equal(after.headers['upload-defer-length'], '1');
    assert.ok(after.offset >= 0 && after.offset <= 5, `offset ${after.offset}`);

    const corrected = await tus.sendChunked(
      'PATCH',
      location,
      { ...CHUNK, 'upload-offset': String(after.offset), 'upload-length': '20' },
      [bytes.subarray(after.offset)],
    );
    assert.equal(corrected?.status, 204, corrected?.text);
    assert.equal(corrected?.headers['upload-offset'], '20');
  });
});
