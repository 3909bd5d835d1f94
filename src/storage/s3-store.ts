import fs from 'node:fs';
import fsp from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobInfo, BlobStore } from './blob-store.ts';
import { filesRouteUrl } from './files-route.ts';
import { bucketCheckError } from './s3-bucket-check.ts';
import type { S3StorageSettings } from './storage-settings.ts';
import { isDiskFull } from './disk-full.ts';
import { StorageUnavailableError } from './storage-unavailable.ts';

/** Size of each part of a multipart upload; with {@link UPLOAD_QUEUE} parts in flight, the memory one upload holds. */
const PART_SIZE = 8 * 1024 * 1024;
const UPLOAD_QUEUE = 2;
/** A server that does not accept the connection within this is taken as down (the SDK waits for ever by default). */
const CONNECT_TIMEOUT_MS = 5_000;
/** A request on which nothing moves for this long fails, so an outage cannot hang a job or an upload. */
const IDLE_TIMEOUT_MS = 60_000;

/** The S3 client a store's settings describe; credentials come from the SDK's default chain (AWS_* variables…). */
export function createS3Client(settings: S3StorageSettings): S3Client {
  return new S3Client(createS3ClientConfig(settings));
}

/** The configuration of {@link createS3Client}, for libraries that build their own client from it. */
export function createS3ClientConfig(settings: S3StorageSettings): S3ClientConfig {
  return {
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: IDLE_TIMEOUT_MS },
    // S3-compatible servers often refuse the SDK's newer default checksum headers; AWS keeps them.
    ...(settings.endpoint
      ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' }
      : {}),
  };
}

/**
 * A {@link BlobStore} in an S3 bucket under the settings' key prefix. Uploads and downloads stream (multipart
 * for large files), so no file is ever held in memory whole; clients get presigned GETs, never bytes relayed by
 * the API. Failures of the server itself become {@link StorageUnavailableError}.
 */
export function createS3Store(settings: S3StorageSettings, client = createS3Client(settings)): BlobStore {
  const Bucket = settings.bucket;
  const fullKey = (key: string): string => {
    // Keys are built by the service; an empty or dot segment would be a bug, and URLs would normalise it away.
    if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
      throw new Error(`Unusable blob key: ${key}`);
    return settings.prefix + key;
  };
  /** Runs one store operation, turning the server's failures into StorageUnavailableError. */
  const attempt = async <T>(operation: string, run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (error) {
      // A missing object and a full local disk (downloading) are not the server's failures.
      if (
        error instanceof StorageUnavailableError ||
        error instanceof MissingObjectError ||
        isDiskFull(error)
      )
        throw error;
      throw new StorageUnavailableError(operation, error);
    }
  };
  const getObject = (key: string) =>
    attempt('read', async () => {
      try {
        const { Body } = await client.send(new GetObjectCommand({ Bucket, Key: fullKey(key) }));
        return Body as Readable;
      } catch (error) {
        if (isNotFound(error)) throw new MissingObjectError(key);
        throw error;
      }
    });
  const signedUrl: NonNullable<BlobStore['signedUrl']> = (
    key,
    headers,
    expiresIn = settings.urlExpiresSeconds,
  ) =>
    getSignedUrl(
      client,
      new GetObjectCommand({
        Bucket,
        Key: fullKey(key),
        ResponseContentType: headers.contentType,
        ResponseContentDisposition: headers.contentDisposition,
        ResponseCacheControl: headers.cacheControl,
      }),
      { expiresIn },
    );

  return {
    putFile: (key, localPath) =>
      attempt('upload', async () => {
        const { size } = await fsp.stat(localPath);
        const upload = new Upload({
          client,
          params: { Bucket, Key: fullKey(key), Body: fs.createReadStream(localPath) },
          partSize: PART_SIZE,
          queueSize: UPLOAD_QUEUE,
        });
        await upload.done();
        return { size };
      }),
    putBytes: (key, bytes) =>
      attempt('upload', async () => {
        await client.send(new PutObjectCommand({ Bucket, Key: fullKey(key), Body: bytes }));
        return { size: bytes.byteLength };
      }),
    read: getObject,
    head: (key) =>
      attempt('head', async (): Promise<BlobInfo | undefined> => {
        try {
          const head = await client.send(new HeadObjectCommand({ Bucket, Key: fullKey(key) }));
          return { size: head.ContentLength ?? 0 };
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        }
      }),
    async download(key, localPath) {
      const body = await getObject(key);
      await attempt('download', () => pipeline(body, fs.createWriteStream(localPath))).catch(
        async (error: unknown) => {
          await fsp.rm(localPath, { force: true });
          throw error;
        },
      );
    },
    delete: (key) =>
      attempt('delete', async () => {
        await client.send(new DeleteObjectCommand({ Bucket, Key: fullKey(key) }));
      }),
    deletePrefix: (prefix) =>
      attempt('delete', async () => {
        const Prefix = settings.prefix + prefix;
        // Deleted page by page: a listing continues after its last key, so removing what it returned is safe.
        let token: string | undefined;
        do {
          const page = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken: token }),
          );
          const keys = (page.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
          if (keys.length > 0) {
            const result = await client.send(
              new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys, Quiet: true } }),
            );
            const failed = result.Errors?.[0];
            if (failed) throw new Error(`could not delete ${failed.Key}: ${failed.Code} ${failed.Message}`);
          }
          token = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (token);
      }),
    publicUrl: filesRouteUrl,
    signedUrl,
    async signedUrlOrigin() {
      // Signing is local: this asks the SDK where it would send a GET, whatever the endpoint and style.
      return new URL(await signedUrl('origin', { contentType: 'application/octet-stream' })).origin;
    },
    async checkAtStart() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (error) {
        throw bucketCheckError(error, settings);
      }
    },
  };
}

/** True when S3 says the object does not exist. */
function isNotFound(error: unknown): boolean {
  const { name, $metadata } = (error ?? {}) as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

/** Reading an object that does not exist; with the `ENOENT` code a missing local file has. */
class MissingObjectError extends Error {
  override readonly name = 'MissingObjectError';
  readonly code = 'ENOENT';
  constructor(key: string) {
    super(`No stored object ${key}`);
  }
}
