import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The Redis server the queue tests run on. There is no default: the Redis suites fail, never skip, when it is not
 * named, so a run that forgot it cannot pass for one that tested the Redis queue.
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
