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
import { createWakeUp } from './events/create-wake-up.ts';
import { bothFanOuts, createEventPublisher, type EventPublisher } from './events/event-publisher.ts';
import type { EventWakeUp } from './events/wake-up.ts';
import { createWebhookFanOut } from './webhooks/fan-out.ts';
import { createConfigurationThumbnailFanOut } from './catalog/thumbnails/configuration-thumbnail-queue.ts';
import { createConfigurationRepository } from './configurations/repository.ts';

/** The long-lived parts the API and the worker share. */
export interface Services {
  database: DatabaseHandle;
  blobs: BlobStore;
  queue: JobQueue;
  /** Tells every API process that events were recorded (Redis, PostgreSQL or in-process). */
  wakeUp: EventWakeUp;
  /** Records model changes for the event stream and webhooks. */
  events: EventPublisher;
  /** Closes the event connections and the queue's, then the database. */
  close(): Promise<void>;
}

/** Tuning both queues share; the test suites shorten it. */
export type QueueTuning = Partial<
  Pick<EmbeddedQueueOptions, 'leaseMs' | 'pollMs' | 'backoffMs' | 'maxAttempts' | 'failureRetry' | 'logger'>
>;

/**
 * Opens the database (migrating it), the blob store and the job queue a config names: BullMQ on Redis when
 * `REDIS_URL` is set (an unreachable Redis stops the start), the embedded queue in the database otherwise. A
 * store that cannot be used (a missing bucket, refused credentials, an unreachable endpoint) stops the start
 * with a ConfigError.
 */
export async function openServices(config: Config, queueOptions: QueueTuning = {}): Promise<Services> {
  const blobs = createBlobStore(config.storage);
  const database = createDb(config.databaseUrl, config);
  let queue: JobQueue;
  try {
    await blobs.checkAtStart?.();
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
  const logger = queueOptions.logger ?? console;
  const wakeUp = createWakeUp(config, database, logger);
  return {
    database,
    blobs,
    queue,
    wakeUp,
    events: createEventPublisher({
      database,
      wakeUp,
      logger,
      fanOut: bothFanOuts(
        createWebhookFanOut(queue),
        createConfigurationThumbnailFanOut(
          queue,
          config.thumbnailRefreshDelayMs,
          createConfigurationRepository(database).idsOf,
        ),
      ),
    }),
    async close() {
      await wakeUp.close();
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
