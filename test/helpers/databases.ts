import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { after, before } from 'node:test';
import pg from 'pg';
import { createDb, type DatabaseHandle, type DialectName } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/** A database a test suite runs on: its own, created empty and dropped afterwards. */
export interface TestDatabase {
  dialect: DialectName;
  url: string;
  /** Opens a migrated connection to it. */
  open(): Promise<DatabaseHandle>;
  /** Drops it. */
  dispose(): Promise<void>;
}

/**
 * The PostgreSQL server of a suite that runs on PostgreSQL alone. There is no default: such a suite fails, never
 * skips, when TEST_DATABASE_URL is not set (and `npm run test:fast` leaves out the suites that call this).
 */
export function testPostgresUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL must name a PostgreSQL server for this suite');
  return url;
}

/** The dialects every database test runs on: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export function testDialects(): DialectName[] {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * Gives the suite it is called in a fresh migrated database of `dialect`, opened before its tests (hooks the
 * suite adds afterwards run after this one) and closed and dropped after them; returns its handle's getter.
 */
export function useTestDatabase(dialect: DialectName): () => DatabaseHandle {
  let database: TestDatabase | undefined;
  let handle: DatabaseHandle | undefined;
  before(async () => {
    database = await createTestDatabase(dialect);
    handle = await database.open();
  });
  after(async () => {
    await handle?.close();
    await database?.dispose();
  });
  return () => {
    if (!handle) throw new Error('the test database is opened before the suite’s tests');
    return handle;
  };
}

/**
 * Creates a fresh database of the dialect. PostgreSQL gets a uniquely named database on the server of
 * TEST_DATABASE_URL so suites may run side by side; an unreachable server fails the suite rather than skipping it.
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-db-'));
    const url = `sqlite:${path.join(dir, 'test.db')}`;
    return {
      dialect,
      url,
      open: () => openMigrated(url),
      dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `vitrine_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(adminUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dialect,
    url: url.toString(),
    open: () => openMigrated(url.toString()),
    dispose: async () => {
      await withAdmin(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
    },
  };
}

async function openMigrated(url: string): Promise<DatabaseHandle> {
  const handle = createDb(url);
  await migrateToLatest(handle.db);
  return handle;
}

async function withAdmin<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}
