import type { Config } from './config.ts';
import type { AppLogger } from './logger.ts';
import { createDb, type DatabaseHandle } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createEmbeddedQueue, type EmbeddedQueueOptions } from './jobs/embedded-queue.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { BlobStore } from './storage/blob-store.ts';
import { createBlobStore } from './storage/create-blob-store.ts';
import { sweepLeftovers } from './storage/sweep-leftovers.ts';

/** The long-lived parts the API and the worker share. */
export interface Services {
  database: DatabaseHandle;
  blobs: BlobStore;
  queue: JobQueue;
  /** Closes the database. */
  close(): Promise<void>;
}

/**
 * Opens the database (migrating it), the blob store and the job queue a config names. A store that cannot be
 * used (a missing bucket, refused credentials, an unreachable endpoint) stops the start with a ConfigError.
 */
export async function openServices(
  config: Config,
  queueOptions: Partial<EmbeddedQueueOptions> = {},
): Promise<Services> {
  const blobs = createBlobStore(config.storage);
  const database = createDb(config.databaseUrl, config);
  try {
    await blobs.checkAtStart?.();
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    database,
    blobs,
    queue: createEmbeddedQueue(database, queueOptions),
    close: () => database.close(),
  };
}

/** Removes what killed processes left (job folders, partial uploads and files) before this one starts working. */
export async function sweepAtStart(config: Config, services: Services, logger: AppLogger): Promise<void> {
  try {
    const removed = await sweepLeftovers({ dataDir: config.dataDir, storeRoot: services.blobs.localRoot });
    if (removed.length > 0) logger.info({ removed }, 'removed left-overs of stopped processes');
  } catch (error) {
    // A sweep that cannot finish must not stop the service; the next start tries again.
    logger.warn({ err: error }, 'left-over sweep failed');
  }
}
