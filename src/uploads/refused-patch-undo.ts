import fs from 'node:fs/promises';
import path from 'node:path';
import type { FileStore } from '@tus/file-store';
import type { DataStore } from '@tus/server';

/** How a store takes back what a refused PATCH changed. */
export interface PatchUndo {
  /** Makes the upload's length deferred again. */
  forgetLength(id: string): Promise<void>;
  /** Drops the bytes written past `offset`, where the store can (undefined: it cannot, see s3-upload-store.ts). */
  truncate?(id: string, offset: number): Promise<void>;
}

/** Waits for the undoing of refused PATCHes; the answer to such a PATCH waits for it (see upload-routes.ts). */
export type RefusalsUndone = () => Promise<void>;

/**
 * Makes a tus PATCH that declares its upload's length and is then refused for sending more than that length (413)
 * leave the upload as it was: tus saves the declared length before it reads the body, so a chunked PATCH (no
 * Content-Length to judge it by beforehand, see upload-routes.ts) used to leave the length behind and the upload
 * unable to take the corrected PATCH. tus answers the 413 as soon as its size limiter fails, before the store has
 * stopped writing and after it has released the upload's lock, so the undo starts at that failure, once the write
 * has settled, and the answer waits for `undone`. A PATCH cut off by its client keeps what it sent, as tus intends.
 */
export function undoRefusedPatches(store: DataStore, undo: PatchUndo): RefusalsUndone {
  const declare = store.declareUploadLength.bind(store);
  const write = store.write.bind(store);
  const declaredHere = new Set<string>();
  const underWay = new Set<Promise<void>>();
  store.declareUploadLength = async (id, length) => {
    await declare(id, length);
    declaredHere.add(id);
  };
  store.write = (readable, id, offset) => {
    const written = write(readable, id, offset);
    // Declaring and writing happen under the upload's lock, so the length declared here is this request's.
    if (!declaredHere.delete(id)) return written;
    // The size limiter in front of the store fails the stream with 413 when the body runs past the length.
    readable.once('error', (error: { status_code?: number }) => {
      if (error.status_code !== 413) return;
      const undone = written
        .then(
          () => undefined,
          () => undefined,
        )
        .then(async () => {
          await undo.truncate?.(id, offset);
          await undo.forgetLength(id);
        });
      underWay.add(undone);
      void undone.then(
        () => underWay.delete(undone),
        () => underWay.delete(undone),
      );
    });
    return written;
  };
  return async () => {
    await Promise.all(underWay);
  };
}

/** The undo of a local {@link FileStore}: its metadata in the configstore, its bytes in one file per upload. */
export function fileStoreUndo(store: FileStore): PatchUndo {
  return {
    async forgetLength(id) {
      const upload = await store.configstore.get(id);
      if (!upload) return;
      upload.size = undefined;
      await store.configstore.set(id, upload);
    },
    // The store's offset is the file's size, so cutting the file takes the bytes back.
    truncate: (id, offset) => fs.truncate(path.join(store.directory, id), offset),
  };
}
