import type { Config } from './config.ts';
import { createDb, type DatabaseHandle } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { createEmbeddedQueue, type EmbeddedQueueOptions } from './jobs/embedded-queue.ts';
import type { JobQueue } from './jobs/queue.ts';
import type { BlobStore } from './storage/blob-store.ts';
import { createBlobStore } from './storage/create-blob-store.ts';

/** The long-lived parts the API and the worker share. */
export interface Services {
  database: DatabaseHandle;
  blobs: BlobStore;
  queue: JobQueue;
  /** Closes the database. */
  close(): Promise<void>;
}

/** Opens the database (migrating it), the blob store and the job queue a config names. */
export async function openServices(
  config: Config,
  queueOptions: Partial<EmbeddedQueueOptions> = {},
): Promise<Services> {
  const database = createDb(config.databaseUrl, config);
  try {
    await migrateToLatest(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    database,
    blobs: createBlobStore(config.storageUrl),
    queue: createEmbeddedQueue(database, queueOptions),
    close: () => database.close(),
  };
}
