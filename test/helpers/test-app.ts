import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { RenderThumbnail } from '../../src/catalog/thumbnails/thumbnails.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { DatabaseHandle, DialectName } from '../../src/db/create-db.ts';
import type { Db } from '../../src/db/database.ts';
import type { JobQueue, QueueConsumer } from '../../src/jobs/queue.ts';
import { createLogger, type AppLogger } from '../../src/logger.ts';
import { openServices, type Services } from '../../src/services.ts';
import type { BlobStore } from '../../src/storage/blob-store.ts';
import { startJobRunner } from '../../src/job-runner.ts';
import type { EventHubOptions } from '../../src/events/event-hub.ts';
import { createTestDatabase, type TestDatabase } from './databases.ts';

/** A thumbnail renderer for suites that look at no picture: their conversions skip the render. */
export const notRendered: RenderThumbnail = async () => Buffer.from('not rendered');

/** The token every test request carries. */
export const TEST_TOKEN = 'test-token-0123456789';

/** An app on its own database and data folder. */
export interface TestApp {
  app: FastifyInstance;
  config: Config;
  database: DatabaseHandle;
  blobs: BlobStore;
  queue: JobQueue;
  /** The services the app was built on, for tests that build a second catalog or worker over them. */
  services: Services;
  /** Headers with the token, for `app.inject`. */
  auth: Record<string, string>;
  /** Starts a job worker in this process (conversions, thumbnails); stopped by `close`. */
  startJobRunner(render?: RenderThumbnail): QueueConsumer;
  close(): Promise<void>;
}

/** Ways a test may change what the app is built on. */
export interface TestAppOptions {
  /** Changes the address the app reaches its database at, e.g. through a proxy the test can cut. */
  rewriteDatabaseUrl?: (url: string) => string;
  /** The logger of the app, queue and worker instead of a silent one (to read what they log). */
  logger?: AppLogger;
  /** Replaces the database the app and worker use (a Kysely plugin that injects faults, say). */
  wrapDb?: (db: Db) => Db;
  /** Tuning of the event stream's log reader. */
  eventHub?: Partial<EventHubOptions>;
}

/** Builds the whole app over a fresh database of the dialect, with a temporary DATA_DIR. */
export async function createTestApp(
  dialect: DialectName,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const testDatabase: TestDatabase = await createTestDatabase(dialect);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-data-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: options.rewriteDatabaseUrl?.(testDatabase.url) ?? testDatabase.url,
    API_TOKEN: TEST_TOKEN,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...env,
  });
  const logger = options.logger ?? createLogger(config.logLevel);
  // Fast polling and short back-off keep tests quick; the behaviour is the same as in production.
  const opened: Services = await openServices(config, {
    logger,
    pollMs: 50,
    backoffMs: 100,
    leaseMs: 3_000,
  });
  const services: Services = options.wrapDb
    ? { ...opened, database: { ...opened.database, db: options.wrapDb(opened.database.db) } }
    : opened;
  const app = await buildApp({
    config,
    ...services,
    apiToken: TEST_TOKEN,
    logger,
    eventHub: options.eventHub,
  });
  await app.ready();
  const workers: QueueConsumer[] = [];
  return {
    app,
    config,
    database: services.database,
    blobs: services.blobs,
    queue: services.queue,
    services,
    auth: { 'x-api-token': TEST_TOKEN },
    startJobRunner(render) {
      const worker = startJobRunner(config, services, logger, render);
      workers.push(worker);
      return worker;
    },
    async close() {
      await app.close();
      await Promise.all(workers.map((worker) => worker.stop()));
      await services.close();
      await testDatabase.dispose();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
