import { Redis } from 'ioredis';
import type { EventWakeUp } from './wake-up.ts';

/** Where the Redis wake-up publishes and listens. */
export interface RedisWakeUpOptions {
  /** `redis://` or `rediss://` URL. */
  url: string;
  /** The pub/sub channel. */
  channel: string;
  logger: Pick<Console, 'warn'>;
}

/** The channel the service uses, after `REDIS_PREFIX` and a colon. */
export const REDIS_EVENTS_CHANNEL = 'events';

/**
 * Wake-ups through Redis pub/sub, for deployments that run Redis anyway. The subscribing connection opens on the
 * first subscriber; ioredis reconnects both connections on its own and re-subscribes.
 */
export function createRedisWakeUp(options: RedisWakeUpOptions): EventWakeUp {
  const { url, channel, logger } = options;
  const listeners = new Set<(id: number) => void>();
  const connect = (role: string): Redis => {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    let warned = 0;
    redis.on('error', (error: Error) => {
      // A server that is down reports on every retry; once a minute is enough to notice.
      if (Date.now() - warned < 60_000) return;
      warned = Date.now();
      logger.warn({ err: error, role }, 'Redis event connection failed; retrying');
    });
    return redis;
  };
  const publisher = connect('publish');
  let subscriber: Redis | undefined;
  let subscribing: Promise<unknown> | undefined;

  return {
    async notify(id) {
      await publisher.publish(channel, String(id));
    },
    async subscribe(listener) {
      listeners.add(listener);
      if (!subscriber) {
        subscriber = connect('subscribe');
        subscriber.on('message', (_channel: string, message: string) => {
          const id = Number(message);
          if (Number.isFinite(id)) for (const each of listeners) each(id);
        });
        // After a reconnect ioredis subscribes again; events in between are read on the stream's timer.
        subscriber.on('ready', () => {
          for (const each of listeners) each(0);
        });
        subscribing = subscriber.subscribe(channel);
      }
      await subscribing;
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await Promise.allSettled([
        publisher.status === 'wait' ? Promise.resolve(publisher.disconnect()) : publisher.quit(),
        subscriber?.quit(),
      ]);
    },
  };
}
