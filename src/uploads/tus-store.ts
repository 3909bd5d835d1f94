import path from 'node:path';
import { FileStore } from '@tus/file-store';
import type { MetadataValue } from '@tus/s3-store';
import type { DataStore } from '@tus/server';
import { IoRedisKvStore, type KvStore, type Locker } from '@tus/utils';
import type { StorageSettings } from '../storage/storage-settings.ts';
import { openRedis, untilReachable } from '../jobs/redis-connection.ts';
import { RedisLocker } from './redis-locker.ts';
import { fileStoreUndo, undoRefusedPatches, type RefusalsUndone } from './refused-patch-undo.ts';
import { S3UploadStore } from './s3-upload-store.ts';
import { createLocalUploadHolds, createRedisUploadHolds, type UploadHolds } from './upload-holds.ts';

/** The folder under DATA_DIR where resumable uploads grow while their chunks arrive. */
export function tusUploadDir(dataDir: string): string {
  return path.join(dataDir, 'uploads');
}

/** The resumable upload store and what it shares with the installation's other API processes. */
export interface ResumableUploads {
  /** Where uploads grow: local files, or the S3 bucket under `<prefix>uploads/`. */
  store: DataStore;
  /** Waits until what refused PATCHes changed is taken back (see refused-patch-undo.ts). */
  refusalsUndone: RefusalsUndone;
  /** Which request is turning which finished upload into a model. */
  holds: UploadHolds;
  /** The tus lock shared by every API process (with Redis); undefined leaves tus its per-process lock. */
  locker: Locker | undefined;
  /** Closes the Redis connection the store opened, if any. */
  close(): Promise<void>;
}

/** Settings {@link openResumableUploads} reads (the service's config has them all). */
export interface ResumableUploadSettings {
  /** `DATA_DIR`: local uploads live under it. */
  dataDir: string;
  storage: StorageSettings;
  /** `REDIS_URL`: with it, the lock, the holds and S3 metadata are shared by every API process. */
  redisUrl: string | undefined;
  /** `REDIS_PREFIX`: the installation's keys in a shared Redis. */
  redisPrefix: string;
  /** `DATABASE_CONNECT_TIMEOUT_SECONDS` in milliseconds, also the Redis connection's. */
  connectTimeoutMs: number;
}

/**
 * Opens the store resumable uploads are written to: a local {@link FileStore} with file storage (taking an
 * upload is a rename there, which already excludes other processes), `@tus/s3-store` in the bucket with S3.
 * With `REDIS_URL` every API process shares the tus lock through Redis, and on S3 an upload's cached metadata
 * and the holds on finished uploads too. Without Redis the lock and holds are per process, fit for one API
 * process, and S3 metadata is not cached (each request reads the upload's `.info` object).
 */
export async function openResumableUploads(settings: ResumableUploadSettings): Promise<ResumableUploads> {
  const local = settings.storage.kind === 'file';
  const store = (cache: KvStore<MetadataValue>): Pick<ResumableUploads, 'store' | 'refusalsUndone'> => {
    if (settings.storage.kind === 'file') {
      const files = new FileStore({ directory: tusUploadDir(settings.dataDir) });
      return { store: files, refusalsUndone: undoRefusedPatches(files, fileStoreUndo(files)) };
    }
    const bucket = new S3UploadStore(settings.storage, cache);
    const undo = { forgetLength: (id: string) => bucket.forgetDeclaredLength(id) };
    return { store: bucket, refusalsUndone: undoRefusedPatches(bucket, undo) };
  };
  if (!settings.redisUrl) {
    return {
      ...store(NO_CACHE),
      holds: createLocalUploadHolds(),
      locker: undefined,
      close: async () => {},
    };
  }
  // A producer connection: while Redis is away, upload requests fail at once (503) instead of hanging.
  const redis = openRedis(settings.redisUrl, {
    role: 'producer',
    commandTimeoutMs: settings.connectTimeoutMs,
  });
  // Subscribed to release requests, so it waits out an outage and resubscribes instead of failing.
  const subscriber = openRedis(settings.redisUrl, {
    role: 'worker',
    commandTimeoutMs: settings.connectTimeoutMs,
  });
  try {
    // A producer connection fails the commands sent before it is connected; the first requests must not.
    await untilReachable(redis, settings.redisUrl, settings.connectTimeoutMs);
  } catch (error) {
    subscriber.disconnect();
    redis.disconnect();
    throw error;
  }
  return {
    ...store(new IoRedisKvStore<MetadataValue>(redis, `${settings.redisPrefix}:tus:`)),
    holds: local ? createLocalUploadHolds() : createRedisUploadHolds(redis, settings.redisPrefix),
    locker: new RedisLocker(redis, subscriber, { prefix: settings.redisPrefix }),
    close: async () => {
      subscriber.disconnect();
      redis.disconnect();
    },
  };
}

/** A metadata cache that keeps nothing, so no process can act on metadata another one changed. */
const NO_CACHE: KvStore<MetadataValue> = {
  get: async () => undefined,
  set: async () => {},
  delete: async () => {},
};
