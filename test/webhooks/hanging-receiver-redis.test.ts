import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { removeRedisKeys, skipWithoutRedis, testRedisUrl, uniqueRedisPrefix } from '../helpers/redis.ts';
import { checkHangingReceiverStallsNothing, HANGING_RECEIVER_ENV } from './hanging-receiver-scenario.ts';

void describe('a webhook receiver that never answers, BullMQ queue', { skip: skipWithoutRedis }, () => {
  const url = testRedisUrl();
  const prefix = uniqueRedisPrefix('hanging-receiver');
  let testApp: TestApp;
  before(async () => {
    testApp = await createTestApp('sqlite', {
      ...HANGING_RECEIVER_ENV,
      REDIS_URL: url,
      REDIS_PREFIX: prefix,
    });
  });
  after(async () => {
    await testApp.close();
    await removeRedisKeys(url, prefix);
  });

  void it('holds up no conversion and no other receiver', async (t) => {
    t.diagnostic(JSON.stringify(await checkHangingReceiverStallsNothing(testApp)));
  });
});
