import type { DataStore } from '@tus/server';
import { createFinishedUploads } from './finished-uploads.ts';
import { receiveForm } from './receive-file.ts';
import type { UploadIntake } from './schemas.ts';
import type { UploadHolds } from './upload-holds.ts';

/**
 * The upload intake the catalog takes its files from: multipart forms streamed to `tmpDir`, and the finished
 * resumable uploads of `store` (see {@link createFinishedUploads} for `holds`). Built here and handed to the catalog,
 * so the catalog needs only the shapes in schemas.ts and uploads/ nothing of the catalog.
 */
export function createUploadIntake(store: DataStore, tmpDir: string, holds: UploadHolds): UploadIntake {
  return { ...createFinishedUploads(store, tmpDir, holds), receiveForm };
}
