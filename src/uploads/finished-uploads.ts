import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FileStore } from '@tus/file-store';
import type { DataStore, Upload } from '@tus/server';
import { ApiError } from '../http/api-error.ts';
import { nulMessage } from '../http/refuse-nul.ts';
import { isDiskFull } from '../storage/disk-full.ts';
import { StorageUnavailableError } from '../storage/storage-unavailable.ts';
import { S3UploadStore } from './s3-upload-store.ts';
import type { FinishedUploads, TakenUpload } from './schemas.ts';
import type { UploadHolds } from './upload-holds.ts';

/** Answer for an upload id the store does not hold (never created, expired, or already made a model). */
export const UPLOAD_NOT_FOUND = 'Upload not found (unknown, expired or already made into a model)';
/** Answer for an upload id some other request is turning into a model right now. */
export const UPLOAD_BUSY = 'Upload is already being made into a model';

/** Suffix of an upload's data file while a request holds it; the sweep knows it. */
export const TAKEN_SUFFIX = '.taken';

/**
 * Over a local {@link FileStore} an upload is taken by renaming its data file, which only one request (of any
 * process sharing the folder) can win, and handed over as a hard link, so a 1 GiB upload is never copied. Over
 * S3 the bytes are streamed to `tmpDir` while `holds` keeps other requests (of this process, or of every process
 * when the holds live in Redis) from taking the same upload.
 */
export function createFinishedUploads(store: DataStore, tmpDir: string, holds: UploadHolds): FinishedUploads {
  if (store instanceof FileStore) {
    return {
      take: (id) => takeFromFileStore(store, id, tmpDir),
      discard: (id) => discardFromFileStore(store, id),
    };
  }
  if (!isReadable(store)) throw new Error('the resumable upload store cannot read its uploads back');
  // The client knows an upload by its URL's last segment; on S3 the store's id is the object key under the prefix.
  const storeId = (id: string) => (store instanceof S3UploadStore ? store.keyPrefix + id : id);
  return {
    async take(id) {
      const key = storeId(id);
      let claimed: boolean;
      try {
        claimed = await holds.claim(key);
      } catch (error) {
        throw new StorageUnavailableError('hold upload', error);
      }
      if (!claimed) throw new ApiError(409, UPLOAD_BUSY);
      const release = () => holds.release(key).catch(() => {});
      try {
        const taken = await takeByCopy(store, key, tmpDir);
        return {
          file: taken.file,
          consume: () => taken.consume().finally(release),
          giveBack: () => taken.giveBack().finally(release),
        };
      } catch (error) {
        await release();
        throw error;
      }
    },
    discard: (id) => storeCall('remove upload', () => store.remove(storeId(id))).catch(ignoreNotFound),
  };
}

/** Removes an upload's data (held or not) and its metadata from a local file store; see {@link FinishedUploads}. */
async function discardFromFileStore(store: FileStore, id: string): Promise<void> {
  const dataPath = path.join(store.directory, id);
  await fsp.rm(`${dataPath}${TAKEN_SUFFIX}`, { force: true });
  await fsp.rm(dataPath, { force: true });
  await store.configstore.delete(id).catch(() => {});
}

/** An upload that is already gone is what a discard wants. */
function ignoreNotFound(error: unknown): void {
  const cause = error instanceof StorageUnavailableError ? error.cause : error;
  const status = (cause as { status_code?: unknown } | null)?.status_code;
  if (status === 404 || status === 410) return;
  throw error;
}

/** Takes a finished upload from a local file store by renaming it; see {@link createFinishedUploads}. */
export async function takeFromFileStore(store: FileStore, id: string, tmpDir: string): Promise<TakenUpload> {
  const dataPath = path.join(store.directory, id);
  const heldPath = `${dataPath}${TAKEN_SUFFIX}`;
  const upload = await finishedUpload(store, id).catch((error: unknown) => {
    // The store misses a data file another request holds (renamed below): that upload is busy, not unknown.
    const held = error instanceof ApiError && error.statusCode === 404 && fs.existsSync(heldPath);
    throw held ? new ApiError(409, UPLOAD_BUSY) : error;
  });
  const filename = uploadFilename(upload);
  try {
    await fsp.rename(dataPath, heldPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new ApiError(409, UPLOAD_BUSY);
    throw error;
  }
  const giveBack = () => fsp.rename(heldPath, dataPath);
  try {
    await fsp.mkdir(tmpDir, { recursive: true });
    const target = path.join(tmpDir, `${randomUUID()}.upload`);
    await linkOrCopy(heldPath, target);
    return {
      file: { path: target, filename, size: upload.offset },
      async consume() {
        await fsp.rm(heldPath, { force: true });
        await store.configstore.delete(id).catch(() => {});
      },
      giveBack,
    };
  } catch (error) {
    await giveBack();
    throw error;
  }
}

/** Takes a finished upload from any tus store by copying its bytes; see {@link createFinishedUploads}. */
export async function takeByCopy(store: ReadableDataStore, id: string, tmpDir: string): Promise<TakenUpload> {
  const upload = await storeCall('read upload', () => finishedUpload(store, id));
  const filename = uploadFilename(upload);
  await fsp.mkdir(tmpDir, { recursive: true });
  const target = path.join(tmpDir, `${randomUUID()}.upload`);
  try {
    await storeCall('read upload', async () => pipeline(await store.read(id), fs.createWriteStream(target)));
  } catch (error) {
    await fsp.rm(target, { force: true });
    throw error;
  }
  return {
    file: { path: target, filename, size: upload.offset },
    consume: () => storeCall('remove upload', () => store.remove(id)),
    giveBack: async () => {},
  };
}

/**
 * Runs a call on a store other than local files: its own failures (S3 or the Redis cache unreachable) become
 * {@link StorageUnavailableError}, answered 503; the answers meant for the client and a full local disk pass.
 */
async function storeCall<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError || isDiskFull(error)) throw error;
    throw new StorageUnavailableError(operation, error);
  }
}

/** A tus store that streams an upload's bytes back (the file and S3 stores do; the base class does not). */
export type ReadableDataStore = DataStore & { read(id: string): Readable | Promise<Readable> };

function isReadable(store: DataStore): store is ReadableDataStore {
  return typeof (store as Partial<ReadableDataStore>).read === 'function';
}

/** The upload when every byte it announced has arrived; 404 or 409 otherwise. */
async function finishedUpload(store: DataStore, id: string): Promise<Upload> {
  let upload: Upload;
  try {
    upload = await store.getUpload(id);
  } catch (error) {
    // tus stores report a missing upload with their protocol errors, plain objects carrying a status code.
    const status = (error as { status_code?: unknown }).status_code;
    if (status === 404 || status === 410) throw new ApiError(404, UPLOAD_NOT_FOUND);
    throw error;
  }
  if (upload.size === undefined || upload.offset !== upload.size) {
    const of = upload.size === undefined ? 'an undeclared length' : `${upload.size} bytes`;
    throw new ApiError(409, `Upload is not finished: ${upload.offset} of ${of} received`);
  }
  return upload;
}

/** The file name the client declared in the tus metadata (`filename`), without folders. */
function uploadFilename(upload: Upload): string {
  const declared = upload.metadata?.filename ?? '';
  if (declared.includes('\0')) throw new ApiError(400, nulMessage('filename'));
  // Both separators: a name from Windows carries backslashes that path.basename on POSIX would keep.
  return declared.split(/[\\/]/).pop() || 'upload';
}

/** A hard link when the folders share a disk (instant, no space used); a copy otherwise. */
async function linkOrCopy(source: string, target: string): Promise<void> {
  try {
    await fsp.link(source, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await fsp.copyFile(source, target);
  }
}
