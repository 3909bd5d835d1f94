import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database, Db } from './database.ts';
import { withStatementCache } from './sqlite-statement-cache.ts';

/** Which SQL engine a connection talks to; the few dialect-specific statements branch on it. */
export type DialectName = 'sqlite' | 'postgres';

/** An open database with its dialect. */
export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  /** Closes every connection. */
  close(): Promise<void>;
}

// int8 (COUNT, bigint ids) arrives as a string by default; every such value here fits a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value) => Number(value));

/** Opens the database a `sqlite:` or `postgres://` URL names. */
export function createDb(url: string): DatabaseHandle {
  if (url.startsWith('sqlite:')) return openSqlite(url.slice('sqlite:'.length));
  return openPostgres(url);
}

function openSqlite(file: string): DatabaseHandle {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const sqlite = new SQLite(file);
  // WAL lets readers run beside the one writer; the busy timeout makes a second process wait, not fail.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // SQLite's own lower() folds ASCII only; the case-insensitive filters must match "Über" with "über" as PostgreSQL does.
  sqlite.function('lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', close: () => db.destroy() };
}

function openPostgres(url: string): DatabaseHandle {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle connection that drops would otherwise crash the process; the next query reconnects and reports.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}
