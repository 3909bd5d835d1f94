// PostgreSQL's fastest bulk load is `copy … from stdin`, which the query builder cannot send: it has no statement
// form for it, and it hands a transaction's statements to its own connection, out of reach. So the pool it is given
// lends clients that run such a statement themselves, streaming its one parameter (text chunks of the copy format)
// as the statement's data, on the connection the transaction holds. Every other statement goes to `pg` as before.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** The statements a lent client streams itself: `copy <table> (<columns>) from stdin`, and nothing else. */
const COPY_FROM_STDIN = /^copy\s[^;]*\sfrom\s+stdin$/i;

/** Whether `sql` is a statement the pool's clients stream themselves (see {@link poolWithCopy}). */
function isCopyFromStdin(sql: string): boolean {
  return COPY_FROM_STDIN.test(sql.trim());
}

/**
 * `pool` as the query builder takes it, with clients that run `copy … from stdin` statements: the statement's one
 * parameter is an iterable of text in COPY's text format (rows of tab-separated values, each ending in a new line),
 * streamed to the server as it is read. The answer is the statement's: its row count, or the server's error.
 */
export function poolWithCopy(pool: pg.Pool): PostgresPool {
  const lent = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapped = lent.get(client);
      if (!wrapped) lent.set(client, (wrapped = withCopy(client)));
      return wrapped;
    },
    end: () => pool.end(),
  };
}

function withCopy(client: pg.PoolClient): PostgresPoolClient {
  const query = ((sql: unknown, parameters?: readonly unknown[]) => {
    if (typeof sql === 'string' && isCopyFromStdin(sql)) return copyIn(client, sql, parameters?.[0]);
    return (client.query as (...args: unknown[]) => unknown)(sql, parameters);
  }) as PostgresPoolClient['query'];
  return { query, release: () => client.release() };
}

async function copyIn(
  client: pg.PoolClient,
  sql: string,
  data: unknown,
): Promise<{ command: string; rowCount: number; rows: never[] }> {
  if (!isIterable(data)) throw new TypeError('a copy from stdin takes its data as an iterable of text');
  const stream = client.query(copyFrom(sql.trim()));
  // A chunk at a time: the next is made while the connection sends the one before, not all of them up front.
  await pipeline(Readable.from(data as Iterable<string>, { highWaterMark: 1 }), stream);
  return { command: 'COPY', rowCount: stream.rowCount, rows: [] };
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.iterator in value;
}
