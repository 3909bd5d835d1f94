import type { Readable } from 'node:stream';

/** Size and validator of a stored object. */
export interface BlobInfo {
  size: number;
}

/** Headers a presigned GET makes the store answer with, as the app itself would serve the file. */
export interface SignedResponseHeaders {
  contentType: string;
  /** `attachment; …` for files that must download (originals, types a browser could run). */
  contentDisposition?: string;
  cacheControl?: string;
}

/**
 * Where uploads and conversion outputs live. Kept to what an object store offers (put, get, head, delete,
 * delete by prefix, a public URL) so an S3 implementation can stand in for the local one.
 */
export interface BlobStore {
  /** The folder holding the objects when they are on local disk; the app serves it at `/files/`. */
  readonly localRoot?: string;
  /** Stores a local file under `key`, moving it when the store is on the same disk. */
  putFile(key: string, localPath: string): Promise<BlobInfo>;
  /** Stores bytes under `key`. */
  putBytes(key: string, bytes: Uint8Array): Promise<BlobInfo>;
  /** Streams an object; rejects when it does not exist. */
  read(key: string): Promise<Readable>;
  /** Size of an object, or undefined when it does not exist. */
  head(key: string): Promise<BlobInfo | undefined>;
  /** Copies an object to a local file (the worker converts from local disk). */
  download(key: string, localPath: string): Promise<void>;
  /** Removes an object; missing objects are not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object whose key starts with `prefix` (a folder: `models/<id>/`). */
  deletePrefix(prefix: string): Promise<void>;
  /** The address clients fetch the object from, given the service's public base URL. */
  publicUrl(key: string, baseUrl: string): string;
  /**
   * A URL the client fetches the object from directly, answered with `headers`, valid for `expiresInSeconds`
   * (the store's configured life by default). Only stores the app does not serve itself (S3) have it, so the
   * API never relays their files.
   */
  signedUrl?(key: string, headers: SignedResponseHeaders, expiresInSeconds?: number): Promise<string>;
  /** The origin signed URLs point at, which the pages' Content-Security-Policy must allow. */
  signedUrlOrigin?(): Promise<string>;
  /** Checks at start that the store is usable; rejects with one line naming the setting to fix. */
  checkAtStart?(): Promise<void>;
}
