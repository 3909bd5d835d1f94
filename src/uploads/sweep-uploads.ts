import fsp from 'node:fs/promises';
import path from 'node:path';
import { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/server';
import type { AppLogger } from '../logger.ts';
import { namesIn } from '../storage/sweep-leftovers.ts';
import { TAKEN_SUFFIX } from './finished-uploads.ts';
import { S3UploadStore } from './s3-upload-store.ts';

/** How often a running service looks for expired resumable uploads. */
export const UPLOAD_SWEEP_INTERVAL_MS = 15 * 60 * 1000;

/** Everything the file store keeps for one upload has this id before its suffix. */
const UPLOAD_FILE = /^([A-Za-z0-9_-]+)(\.json|\.taken)?$/;

/**
 * Removes the resumable uploads nobody touched for `maxAgeMs`: unfinished ones their client gave up on, and
 * finished ones never made into a model. Age counts from an upload's last change (a chunk written, the upload
 * taken), so a slow upload that keeps moving never expires. Returns the ids removed.
 */
export async function sweepExpiredUploads(
  store: DataStore,
  maxAgeMs: number,
  now = Date.now(),
): Promise<string[]> {
  if (store instanceof S3UploadStore) return store.sweepExpired(maxAgeMs, now);
  if (!(store instanceof FileStore)) {
    // Other stores track creation dates themselves (and may add lifecycle rules of their own).
    if (store.hasExtension('expiration')) await store.deleteExpired();
    return [];
  }
  const lastChange = new Map<string, number>();
  for (const name of await namesIn(store.directory)) {
    const id = UPLOAD_FILE.exec(name)?.[1];
    if (!id) continue;
    const stat = await fsp.stat(path.join(store.directory, name)).catch(() => undefined);
    if (!stat) continue;
    // ctime moves on a rename or link too, which mtime does not: a freshly taken upload counts as touched.
    const changed = Math.max(stat.mtimeMs, stat.ctimeMs);
    lastChange.set(id, Math.max(lastChange.get(id) ?? 0, changed));
  }
  const removed: string[] = [];
  for (const [id, changed] of lastChange) {
    if (now - changed <= maxAgeMs) continue;
    for (const suffix of ['', '.json', TAKEN_SUFFIX]) {
      await fsp.rm(path.join(store.directory, `${id}${suffix}`), { force: true });
    }
    removed.push(id);
  }
  return removed;
}

/** Sweeps now and then every {@link UPLOAD_SWEEP_INTERVAL_MS}; returns the function that stops it. */
export function scheduleUploadSweep(store: DataStore, maxAgeMs: number, logger: AppLogger): () => void {
  const sweep = () =>
    sweepExpiredUploads(store, maxAgeMs)
      .then((removed) => {
        if (removed.length > 0) logger.info({ removed }, 'removed expired resumable uploads');
      })
      // A sweep that fails (a folder briefly unreadable) is tried again at the next period.
      .catch((error: unknown) => logger.warn({ err: error }, 'resumable upload sweep failed'));
  void sweep();
  const timer = setInterval(() => void sweep(), UPLOAD_SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
