import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { DatabaseHandle, DialectName } from '../../src/db/create-db.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';

/** The token every test request carries. */
export const TEST_TOKEN = 'test-token-0123456789';

/** An app on its own database and data folder. */
export interface TestApp {
  app: FastifyInstance;
  config: Config;
  database: DatabaseHandle;
  /** Headers with the token, for `app.inject`. */
  auth: Record<string, string>;
  close(): Promise<void>;
}

/** Builds the whole app over a fresh database of the dialect, with a temporary DATA_DIR. */
export async function createTestApp(
  dialect: DialectName,
  env: Record<string, string> = {},
): Promise<TestApp> {
  const testDatabase: TestDatabase = await createTestDatabase(dialect);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-data-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: testDatabase.url,
    API_TOKEN: TEST_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...env,
  });
  const database = await testDatabase.open();
  const app = await buildApp({ config, database, apiToken: TEST_TOKEN });
  await app.ready();
  return {
    app,
    config,
    database,
    auth: { 'x-api-token': TEST_TOKEN },
    async close() {
      await app.close();
      await database.close();
      await testDatabase.dispose();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
