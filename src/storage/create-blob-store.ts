import type { BlobStore } from './blob-store.ts';
import { createFileStore } from './file-store.ts';
import { createS3Store } from './s3-store.ts';
import type { StorageSettings } from './storage-settings.ts';

/** Opens the store the storage settings name: a local folder or an S3 bucket. */
export function createBlobStore(settings: StorageSettings): BlobStore {
  return settings.kind === 'file' ? createFileStore(settings.root) : createS3Store(settings);
}
