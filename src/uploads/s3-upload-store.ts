import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  ListPartsCommand,
} from '@aws-sdk/client-s3';
import { S3Store, type MetadataValue } from '@tus/s3-store';
import { ERRORS, type KvStore } from '@tus/utils';
import { createS3ClientConfig } from '../storage/s3-store.ts';
import type { S3StorageSettings } from '../storage/storage-settings.ts';

/** Folder, under the installation's key prefix, that resumable uploads grow in. */
export const S3_UPLOADS_FOLDER = 'uploads/';

/** Suffixes @tus/s3-store gives an upload's companions: its metadata and a tail shorter than one S3 part. */
const COMPANIONS = ['.info', '.part'];

/**
 * `@tus/s3-store` with the few changes a shared bucket and several API processes need. Upload ids carry the
 * installation's key prefix (`<prefix>uploads/<id>`, see tus-store.ts), since the store names every object by the
 * id alone. A finished upload can be removed (the library's `remove` stops at the completed multipart upload), a
 * declared length reaches every process sharing the metadata cache, and expiry counts from an upload's last
 * change and stays inside the prefix, unlike the library's `deleteExpired`, which reads creation dates of the
 * whole bucket's multipart uploads.
 */
export class S3UploadStore extends S3Store {
  /** The keys every upload of this installation starts with. */
  readonly keyPrefix: string;

  constructor(settings: S3StorageSettings, cache: KvStore<MetadataValue>) {
    const clientConfig = createS3ClientConfig(settings);
    super({ s3ClientConfig: { ...clientConfig, bucket: settings.bucket }, cache });
    this.keyPrefix = settings.prefix + S3_UPLOADS_FOLDER;
  }

  /** Removes an upload whatever its state: the multipart upload when unfinished, then every object of it. */
  override async remove(id: string): Promise<void> {
    let uploadId: string | undefined;
    try {
      uploadId = (await this.getMetadata(id))['upload-id'];
    } catch (error) {
      if (isMissing(error)) throw ERRORS.FILE_NOT_FOUND;
      throw error;
    }
    await this.abortUnfinished(id, uploadId);
    await this.deleteKeys([id, ...COMPANIONS.map((suffix) => id + suffix)]);
    await this.clearCache(id);
  }

  /** The library saves the new length but keeps the cached metadata without it; other processes must reread it. */
  override async declareUploadLength(id: string, length: number): Promise<void> {
    await super.declareUploadLength(id, length);
    await this.clearCache(id);
  }

  /**
   * Makes an upload's length deferred again, taking back the length a refused PATCH declared (see
   * refused-patch-undo.ts). The bytes that PATCH sent before it ran past the length are not taken back: S3 cannot
   * remove a part from a multipart upload, so the upload's offset may have moved, as after a PATCH cut off midway.
   */
  async forgetDeclaredLength(id: string): Promise<void> {
    const { file, 'upload-id': uploadId } = await this.getMetadata(id);
    file.size = undefined;
    await this.saveMetadata(file, uploadId);
    await this.clearCache(id);
  }

  /**
   * Removes the uploads whose last change (creation, a chunk, a declared length, completion) is older than
   * `maxAgeMs`; returns their ids. Multipart uploads that never got their `.info` (a process killed between the
   * two requests) are not seen here: the bucket's lifecycle rule for incomplete multipart uploads takes them.
   */
  async sweepExpired(maxAgeMs: number, now = Date.now()): Promise<string[]> {
    const lastChange = new Map<string, number>();
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: this.keyPrefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        const id = uploadIdOfKey(object.Key);
        const changed = object.LastModified?.getTime() ?? 0;
        lastChange.set(id, Math.max(lastChange.get(id) ?? 0, changed));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);

    const removed: string[] = [];
    for (const [id, listed] of lastChange) {
      if (now - listed <= maxAgeMs) continue;
      const uploadId = await this.storedUploadId(id);
      // Parts written since are the latest change of an unfinished upload, and keep it alive.
      const partChanged = uploadId ? await this.lastPartChange(id, uploadId) : 0;
      if (now - Math.max(listed, partChanged) <= maxAgeMs) continue;
      await this.abortUnfinished(id, uploadId);
      await this.deleteKeys([id, ...COMPANIONS.map((suffix) => id + suffix)]);
      await this.clearCache(id);
      removed.push(id);
    }
    return removed;
  }

  /** The multipart upload id the `.info` object records; undefined when it is gone. */
  private async storedUploadId(id: string): Promise<string | undefined> {
    try {
      const info = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: this.infoKey(id) }),
      );
      // The body is only drained: the id lives in the object's metadata.
      await info.Body?.transformToString();
      return info.Metadata?.['upload-id'];
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  /** Time of the newest part of an unfinished multipart upload; 0 when it has none or is complete. */
  private async lastPartChange(id: string, uploadId: string): Promise<number> {
    let newest = 0;
    let marker: string | undefined;
    try {
      do {
        const page = await this.client.send(
          new ListPartsCommand({
            Bucket: this.bucket,
            Key: id,
            UploadId: uploadId,
            PartNumberMarker: marker,
          }),
        );
        for (const part of page.Parts ?? []) newest = Math.max(newest, part.LastModified?.getTime() ?? 0);
        marker = page.IsTruncated ? page.NextPartNumberMarker : undefined;
      } while (marker);
    } catch (error) {
      if (isMissing(error)) return 0;
      throw error;
    }
    return newest;
  }

  /** Aborts the multipart upload behind an unfinished upload; a completed or aborted one is left as it is. */
  private async abortUnfinished(id: string, uploadId: string | undefined): Promise<void> {
    if (!uploadId) return;
    try {
      await this.client.abortMultipartUpload({ Bucket: this.bucket, Key: id, UploadId: uploadId });
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    const result = await this.client.send(
      new DeleteObjectsCommand({
        Bucket: this.bucket,
        Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
      }),
    );
    const failed = result.Errors?.[0];
    if (failed) throw new Error(`could not delete ${failed.Key}: ${failed.Code} ${failed.Message}`);
  }
}

/** The upload id (its data object's key) an object of the store belongs to. */
function uploadIdOfKey(key: string): string {
  for (const suffix of COMPANIONS) if (key.endsWith(suffix)) return key.slice(0, -suffix.length);
  return key;
}

/** True when S3 says the object or multipart upload does not exist. */
function isMissing(error: unknown): boolean {
  const { name, $metadata } = (error ?? {}) as { name?: unknown; $metadata?: { httpStatusCode?: number } };
  return (
    name === 'NoSuchKey' ||
    name === 'NoSuchUpload' ||
    name === 'NotFound' ||
    $metadata?.httpStatusCode === 404
  );
}
