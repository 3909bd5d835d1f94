import type { DatabaseHandle } from '../db/create-db.ts';
import { createInProcessWakeUp } from './in-process-wake-up.ts';
import { createPostgresWakeUp, POSTGRES_EVENTS_CHANNEL } from './postgres-wake-up.ts';
import { createRedisWakeUp, REDIS_EVENTS_CHANNEL } from './redis-wake-up.ts';
import type { EventWakeUp } from './wake-up.ts';

/**
 * The wake-up a deployment uses: Redis pub/sub when `REDIS_URL` is set, else PostgreSQL `LISTEN/NOTIFY` on
 * PostgreSQL, else in-process on SQLite.
 */
export function createWakeUp(
  settings: { redisUrl: string | undefined; redisPrefix: string; databaseUrl: string },
  database: DatabaseHandle,
  logger: Pick<Console, 'warn'>,
): EventWakeUp {
  if (settings.redisUrl)
    return createRedisWakeUp({
      url: settings.redisUrl,
      channel: `${settings.redisPrefix}:${REDIS_EVENTS_CHANNEL}`,
      logger,
    });
  if (database.dialect === 'postgres') {
    return createPostgresWakeUp({
      url: settings.databaseUrl,
      db: database.db,
      channel: POSTGRES_EVENTS_CHANNEL,
      logger,
    });
  }
  return createInProcessWakeUp();
}
