import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { skipUnlessAvailable } from './needed-service.ts';

/**
 * The `skip` option of every Redis suite: outside CI they are skipped when TEST_REDIS_URL is not set (`npm test`
 * says so in one line); in CI they run, and fail on {@link testRedisUrl}.
 */
export const skipWithoutRedis = skipUnlessAvailable(
  Boolean(process.env.TEST_REDIS_URL),
  'TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)',
);

/**
 * The Redis server the queue tests run on. There is no default: a Redis suite that runs without it fails, so a CI
 * run that forgot it cannot pass for one that tested the Redis queue.
 */
export function testRedisUrl(): string {
  const url = process.env.TEST_REDIS_URL;
  if (!url) {
    throw new Error(
      'TEST_REDIS_URL is not set: the Redis queue tests need a server, e.g. redis://127.0.0.1:6379',
    );
  }
  return url;
}

/** A key prefix no other suite uses, so suites can share the server side by side. */
export function uniqueRedisPrefix(name: string): string {
  return `vitrine-test-${name}-${randomBytes(6).toString('hex')}`;
}

/** Deletes every key under a prefix, leaving the server as the suite found it. */
export async function removeRedisKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
