import path from 'node:path';
import { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/server';
import type { Config } from '../config.ts';

/** The folder under DATA_DIR where resumable uploads grow while their chunks arrive. */
export function tusUploadDir(dataDir: string): string {
  return path.join(dataDir, 'uploads');
}

/**
 * The store resumable uploads are written to. It is chosen here alone, so that an object store (`@tus/s3-store`
 * when STORAGE_URL is `s3://`) can take the place of local files without touching the routes or the catalog.
 */
export function createTusDataStore(config: Pick<Config, 'dataDir' | 'storageUrl'>): DataStore {
  // Uploads are swept by their last change (sweep-uploads.ts), not by tus's creation-date expiry, so a slow
  // upload that keeps moving is never refused part-way.
  return new FileStore({ directory: tusUploadDir(config.dataDir) });
}
