import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database, Db } from './database.ts';
import { poolWithCopy } from './copy-from-stdin.ts';
import { withStatementCache } from './sqlite-statement-cache.ts';

/** Which SQL engine a connection talks to; the few dialect-specific statements branch on it. */
export type DialectName = 'sqlite' | 'postgres';

/** An open database with its dialect. */
export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  /**
   * SQLite only (a database file): a second, read-only connection for the hottest reads. It sees committed data
   * only, never waits behind the writer's open transaction, and skips the query builder's per-call overhead.
   */
  sqliteReader?: SQLite.Database;
  /**
   * SQLite only (a database file): the query builder over `sqliteReader`, for the catalog's reads that must not wait
   * while the one writer connection is held by a long transaction (a model of 100,000 parts completing).
   */
  readDb?: Db;
  /**
   * PostgreSQL only: the pool under the query builder, for the hottest single read as a named statement that each
   * connection parses and plans once.
   */
  postgresPool?: pg.Pool;
  /** Closes every connection. */
  close(): Promise<void>;
}

// int8 (COUNT, bigint ids) arrives as a string by default; every such value here fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** How long the service waits on its database before it answers 503 instead. */
export interface DatabaseTimeouts {
  /** Opening a connection (PostgreSQL), or waiting for another writer's lock (SQLite). */
  connectTimeoutMs: number;
  /** One statement; PostgreSQL cancels it on the server, the driver gives up a little later if it hears nothing. */
  statementTimeoutMs: number;
}

/** The defaults of {@link DatabaseTimeouts}. */
export const DATABASE_TIMEOUTS: DatabaseTimeouts = { connectTimeoutMs: 5_000, statementTimeoutMs: 30_000 };

/** Opens the database a `sqlite:` or `postgres://` URL names. */
export function createDb(url: string, timeouts: DatabaseTimeouts = DATABASE_TIMEOUTS): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length), timeouts);
  return openPostgres(url, timeouts);
}

function openSqlite(file: string, timeouts: DatabaseTimeouts): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets readers run beside the one writer; the busy timeout makes a second process wait, not fail.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${timeouts.connectTimeoutMs}`);
  const db = queryBuilderOver(sqlite);
  if (file === ':memory:') return { db, dialect: 'sqlite', close: () => db.destroy() };
  // WAL readers see the last commit; the writer above made the file and its WAL, so this one only opens them.
  const sqliteReader = new SQLite(file, { readonly: true, fileMustExist: true });
  sqliteReader.pragma(`busy_timeout = ${timeouts.connectTimeoutMs}`);
  const readDb = queryBuilderOver(sqliteReader);
  return {
    db,
    dialect: 'sqlite',
    sqliteReader,
    readDb,
    close: async () => {
      // The query builder closes the connection only if it used it; closing twice is harmless.
      await readDb.destroy();
      sqliteReader.close();
      await db.destroy();
    },
  };
}

/** Kysely over one SQLite connection, with the statement cache and the `lower` the filters need. */
function queryBuilderOver(sqlite: SQLite.Database): Db {
  // SQLite's own lower() folds ASCII only; the case-insensitive filters must match "Über" with "über" as PostgreSQL does.
  sqlite.function('lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}

function openPostgres(url: string, timeouts: DatabaseTimeouts): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    statement_timeout: timeouts.statementTimeoutMs,
    // The server cannot cancel anything when the network to it is gone; the driver then stops waiting itself.
    query_timeout: timeouts.statementTimeoutMs + timeouts.connectTimeoutMs,
    // A process that hangs inside a transaction must not hold its row locks for ever.
    idle_in_transaction_session_timeout: 2 * timeouts.statementTimeoutMs,
    keepAlive: true,
  });
  // An idle connection that drops would otherwise crash the process; the next query reconnects and reports.
  pool.on('error', () => {});
  // So would one that drops while checked out between two statements (inside a transaction): pg-pool listens
  // only on idle clients. The statement that follows fails instead and the pool discards the client.
  pool.on('connect', (client) => client.on('error', () => {}));
  // Bulk inserts stream as `copy … from stdin` on the connection their transaction holds (insert-rows.ts).
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: poolWithCopy(pool) }) });
  return { db, dialect: 'postgres', postgresPool: pool, close: () => db.destroy() };
}
