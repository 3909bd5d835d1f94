import type { Config } from './config.ts';
import type { AppLogger } from './logger.ts';
import { createDb, type DatabaseHandle } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { openBullmqQueue } from './jobs/bullmq-queue.ts';
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
  /** Closes the queue's connections, then the database. */
  close(): Promise<void>;
}

/** Tuning both queues share; the test suites shorten it. */
export type QueueTuning = Partial<
  Pick<EmbeddedQueueOptions, 'leaseMs' | 'pollMs' | 'backoffMs' | 'maxAttempts' | 'logger'>
>;

/**
 * Opens the database (migrating it), the blob store and the job queue a config names: BullMQ on Redis when
 * `REDIS_URL` is set (an unreachable Redis stops the start), the embedded queue in the database otherwise.
 */
export async function openServices(config: Config, queueOptions: QueueTuning = {}): Promise<Services> {
  const database = createDb(config.databaseUrl, config);
  let queue: JobQueue;
  try {
    await migrateToLatest(database.db);
    queue = config.redisUrl
      ? await openBullmqQueue(database, {
          ...queueOptions,
          redisUrl: config.redisUrl,
          prefix: config.redisPrefix,
          connectTimeoutMs: config.connectTimeoutMs,
        })
      : createEmbeddedQueue(database, queueOptions);
  } catch (error) {
    await database.close();
    throw error;
  }
  return {
    database,
    blobs: createBlobStore(config.storageUrl),
    queue,
    async close() {
      await queue.close();
      await database.close();
    },
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
