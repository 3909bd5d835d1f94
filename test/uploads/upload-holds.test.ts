// The Redis holds that let one request at a time make a finished upload a model. A soak with Redis frozen for 20 s
// found a claim whose command timed out in the client but reached Redis after the thaw: the hold it set outlived the
// request by an hour, and every retry of the upload was refused with 409 "already being made into a model".
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { createRedisUploadHolds } from '../../src/uploads/upload-holds.ts';
import { createFreezableProxy, type FreezableProxy } from '../helpers/freezable-proxy.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { throughProxy } from '../helpers/tcp-proxy.ts';

void describe('Redis upload holds', { skip: skipWithoutRedis }, () => {
  const prefix = uniqueRedisPrefix('holds');
  let proxy: FreezableProxy;
  let redis: Redis;
  before(async () => {
    const url = new URL(testRedisUrl());
    proxy = await createFreezableProxy(url.hostname, Number(url.port || 6379));
    redis = new Redis(throughProxy(testRedisUrl(), proxy), { commandTimeout: 300, maxRetriesPerRequest: 1 });
  });
  after(async () => {
    redis.disconnect();
    await proxy.close();
    await removeRedisKeys(testRedisUrl(), prefix);
  });

  void it('gives one holder at a time, and a release frees the upload', async () => {
    const holds = createRedisUploadHolds(redis, prefix);
    const others = createRedisUploadHolds(redis, prefix);
    assert.equal(await holds.claim('a'), true);
    assert.equal(await others.claim('a'), false);
    // A release by one that does not hold it leaves the hold alone.
    await others.release('a');
    assert.equal(await others.claim('a'), false);
    await holds.release('a');
    assert.equal(await others.claim('a'), true);
    await others.release('a');
  });

  void it('leaves no hold behind when a claim timed out in a stalled Redis and reached it after', async () => {
    const holds = createRedisUploadHolds(redis, prefix);
    proxy.freeze();
    await assert.rejects(holds.claim('b'), /Command timed out/);
    proxy.thaw();
    // The SET reached Redis on the thaw; what the timed-out claim sent after it takes it off again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await holds.claim('b'), true, 'a retry may take the upload');
    await holds.release('b');
  });
});
