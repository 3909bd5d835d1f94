import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createWakeUp } from '../../src/events/create-wake-up.ts';
import { createRedisWakeUp, REDIS_EVENTS_CHANNEL } from '../../src/events/redis-wake-up.ts';
import type { EventWakeUp } from '../../src/events/wake-up.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/databases.ts';
import { skipWithoutRedis, testRedisUrl } from '../helpers/redis.ts';
import type { DatabaseHandle } from '../../src/db/create-db.ts';

const quiet = { warn: () => {} };

/** Resolves with the first id a subscriber hears that satisfies `match`. */
function heard(wakeUp: EventWakeUp, match: (id: number) => boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no wake-up within 5 s')), 5_000);
    void wakeUp.subscribe((id) => {
      if (!match(id)) return;
      clearTimeout(timer);
      resolve(id);
    });
  });
}

void describe('Redis event wake-up', { skip: skipWithoutRedis }, () => {
  const opened: EventWakeUp[] = [];
  let redisUrl: string;
  let testDatabase: TestDatabase;
  let database: DatabaseHandle;
  before(async () => {
    redisUrl = testRedisUrl();
    testDatabase = await createTestDatabase('sqlite');
    database = await testDatabase.open();
  });
  after(async () => {
    await Promise.all(opened.map((wakeUp) => wakeUp.close()));
    await database?.close();
    await testDatabase?.dispose();
  });
  const open = (channel: string) => {
    const wakeUp = createRedisWakeUp({ url: redisUrl, channel, logger: quiet });
    opened.push(wakeUp);
    return wakeUp;
  };

  void it('carries an id from one process’s publisher to every subscriber on the channel, and no other', async () => {
    const channel = `vitrine-test:${randomBytes(6).toString('hex')}`;
    const publisher = open(channel);
    const listenerA = open(channel);
    const listenerB = open(channel);
    const elsewhere = open(`${channel}:other`);
    const strayIds: number[] = [];
    await elsewhere.subscribe((id) => id > 0 && strayIds.push(id));
    const a = heard(listenerA, (id) => id === 42);
    const b = heard(listenerB, (id) => id === 42);
    // Subscribing is asynchronous; publish until both have heard it (pub/sub keeps nothing for latecomers).
    let settled = false;
    void Promise.all([a, b]).finally(() => (settled = true));
    for (let i = 0; i < 50 && !settled; i++) {
      await publisher.notify(42);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await Promise.all([a, b]), [42, 42]);
    assert.deepEqual(strayIds, []);
  });

  void it('is the transport the service picks when REDIS_URL is set', async () => {
    // A prefix of the test's own, as REDIS_PREFIX gives each installation sharing one Redis.
    const redisPrefix = `vitrine-test-${Math.random().toString(36).slice(2)}`;
    const wakeUp = createWakeUp({ redisUrl, redisPrefix, databaseUrl: 'sqlite::memory:' }, database, quiet);
    opened.push(wakeUp);
    const listener = open(`${redisPrefix}:${REDIS_EVENTS_CHANNEL}`);
    const id = 1_000_000 + Math.floor(Math.random() * 1_000_000);
    const got = heard(listener, (value) => value === id);
    let settled = false;
    void got.finally(() => (settled = true));
    for (let i = 0; i < 50 && !settled; i++) {
      await wakeUp.notify(id);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(await got, id);
  });
});
