import type { BlobStore } from './blob-store.ts';
import { createFileStore } from './file-store.ts';

/** Opens the store a `STORAGE_URL` names (`file:<folder>`). */
export function createBlobStore(storageUrl: string): BlobStore {
  if (storageUrl.startsWith('file:')) return createFileStore(storageUrl.slice('file:'.length));
  throw new Error(`Unsupported STORAGE_URL: ${storageUrl}`);
}
