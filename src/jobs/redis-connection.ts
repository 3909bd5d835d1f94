import { Redis } from 'ioredis';

/** Thrown at start when Redis does not answer; the message names REDIS_URL and fits on one line. */
export class RedisUnreachableError extends Error {
  override readonly name = 'RedisUnreachableError';
}

/** The URL without its password, fit for logs and messages. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an invalid URL';
  }
}

/** How a Redis connection behaves while the server is away. */
export interface RedisConnectionOptions {
  /**
   * A producer (enqueue, promote, cancel) fails its commands at once while disconnected, so an API request answers
   * 503 instead of hanging; a worker's connection waits and retries, carrying on when Redis is back.
   */
  role: 'producer' | 'worker';
  /** A command that gets no answer within this time fails (producer only). */
  commandTimeoutMs: number;
}

/** Opens an ioredis connection to a `redis://` or `rediss://` URL; it reconnects by itself after an outage. */
export function openRedis(url: string, options: RedisConnectionOptions): Redis {
  const producer = options.role === 'producer';
  const redis = new Redis(url, {
    // BullMQ needs workers to wait for a reconnect rather than give up on a command.
    maxRetriesPerRequest: producer ? 1 : null,
    enableOfflineQueue: !producer,
    commandTimeout: producer ? options.commandTimeoutMs : undefined,
    connectTimeout: options.commandTimeoutMs,
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // Connection errors are reported through the queue that uses the connection; without a listener ioredis would
  // print each reconnect attempt.
  redis.on('error', () => {});
  return redis;
}

/** Resolves once the connection is ready; rejects with a message naming REDIS_URL after `timeoutMs`. */
export async function untilReachable(redis: Redis, url: string, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  let lastError: unknown;
  const onError = (error: unknown) => (lastError = error);
  let onReady = () => {};
  let timer: NodeJS.Timeout | undefined;
  redis.on('error', onError);
  try {
    await new Promise<void>((resolve, reject) => {
      onReady = resolve;
      redis.once('ready', onReady);
      timer = setTimeout(() => {
        const reason = lastError instanceof Error ? lastError.message : 'no answer';
        reject(
          new RedisUnreachableError(
            `cannot reach Redis at REDIS_URL (${redactRedisUrl(url)}): ${reason}; start Redis or correct REDIS_URL`,
          ),
        );
      }, timeoutMs);
    });
  } finally {
    clearTimeout(timer);
    redis.off('error', onError);
    redis.off('ready', onReady);
  }
}

// Wording ioredis uses when a command meets a connection that is down or slow.
const UNAVAILABLE_WORDING =
  /Connection is closed|Stream isn't writeable|Command timed out|max retries|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH|ENOTFOUND|EPIPE/i;

/** True when a Redis command failed because the server is unreachable, not because of the command. */
export function isRedisUnavailable(error: unknown, redis: Redis): boolean {
  if (redis.status !== 'ready') return true;
  const { message } = (error ?? {}) as { message?: unknown };
  return typeof message === 'string' && UNAVAILABLE_WORDING.test(message);
}
