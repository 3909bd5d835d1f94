import { sql } from 'kysely';
import pg from 'pg';
import type { Db } from '../db/database.ts';
import type { EventWakeUp } from './wake-up.ts';

/** Where the PostgreSQL wake-up listens and notifies. */
export interface PostgresWakeUpOptions {
  /** The service's `postgres://` URL; the listener holds one connection of its own there. */
  url: string;
  /** The service's database, which sends the notifications. */
  db: Db;
  /** The channel name (an SQL identifier). */
  channel: string;
  logger: Pick<Console, 'warn'>;
  /** Wait before reconnecting a listener whose connection dropped. */
  reconnectMs?: number;
}

/** The channel the service uses. */
export const POSTGRES_EVENTS_CHANNEL = 'vitrine_events';

/**
 * Wake-ups through PostgreSQL `LISTEN`/`NOTIFY`, reaching every process on the database. The listening
 * connection opens on the first subscriber, so processes that only publish (workers) hold none.
 */
export function createPostgresWakeUp(options: PostgresWakeUpOptions): EventWakeUp {
  const { channel, logger, reconnectMs = 1_000 } = options;
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel name "${channel}"`);
  const listeners = new Set<(id: number) => void>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: options.url, keepAlive: true });
    next.on('notification', (message) => {
      const id = Number(message.payload);
      if (Number.isFinite(id)) for (const listener of listeners) listener(id);
    });
    next.on('error', (error) => {
      logger.warn({ err: error }, 'event listener connection failed; reconnecting');
      reconnect(next);
    });
    next.on('end', () => reconnect(next));
    await next.connect();
    await next.query(`listen ${channel}`);
    if (closed) {
      await next.end();
      return;
    }
    client = next;
    // Events committed while the listener was away are read by the stream's timer or the next wake-up.
    for (const listener of listeners) listener(0);
  };

  const reconnect = (dropped: pg.Client): void => {
    if (closed || client !== dropped) return;
    client = undefined;
    dropped.end().catch(() => {});
    clearTimeout(retry);
    retry = setTimeout(() => void ensureListening().catch(() => {}), reconnectMs);
  };

  const ensureListening = (): Promise<void> => {
    if (client || closed) return Promise.resolve();
    connecting ??= connect()
      .catch((error: unknown) => {
        logger.warn({ err: error }, 'event listener could not connect; retrying');
        clearTimeout(retry);
        retry = setTimeout(() => void ensureListening().catch(() => {}), reconnectMs);
      })
      .finally(() => {
        connecting = undefined;
      });
    return connecting;
  };

  return {
    async notify(id) {
      await sql`select pg_notify(${channel}, ${String(id)})`.execute(options.db);
    },
    async subscribe(listener) {
      listeners.add(listener);
      await ensureListening();
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      listeners.clear();
      await connecting;
      await client?.end().catch(() => {});
      client = undefined;
    },
  };
}
