// A new version of a model from an upload: its file judged like a model's, its row and held conversion job
// committed together, its file moved into the version's folder, and its job let go. The model and its current
// version are not touched until the version's conversion completes.
import fsp from 'node:fs/promises';
import type { Db, ModelVersionRow } from '../../db/database.ts';
import type { EventPublisher } from '../../events/event-publisher.ts';
import { ApiError } from '../../http/api-error.ts';
import { JobName } from '../../jobs/job-types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { AppLogger } from '../../logger.ts';
import type { DetectedFormat } from '../../pipeline/detect-format.ts';
import { LENGTH_UNITS, UP_AXES } from '../../pipeline/types.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { UploadedFile } from '../../uploads/schemas.ts';
import { createVersionRepository } from '../versions/repository.ts';
import { versionFolder, versionJobSubject } from '../versions/schemas.ts';
import { sourceKey } from '../lod-keys.ts';
import { declared, UPLOAD_HOLD_MS } from './model-upload.ts';
import { MODEL_NOT_FOUND } from '../schemas.ts';
import { isUniqueViolation } from './request-keys.ts';
import { storageFullOr } from '../storage-full.ts';
import { judgeLoneFile } from './upload-bundle.ts';

/** A version's upload as the client sent it. */
export interface NewVersionUpload {
  file: UploadedFile;
  /** What the file was judged to be when several files were packed into one; absent, it is judged here. */
  detected?: DetectedFormat;
  /** The version's `original_filename` when it is not the file's own name. */
  originalFilename?: string;
  /** Declared unit and up axis of a file that states none. */
  unit?: string;
  up?: string;
  /** Name of the scoped token that posts it; null for the admin token. */
  author: string | null;
  /** The finished resumable upload it comes from: it makes one version only, which a retry answers. */
  uploadId?: string;
}

/** Thrown when the unique index shows a concurrent copy of the request made the version from its upload first. */
export class VersionMadeAlready extends Error {
  override readonly name = 'VersionMadeAlready';

  constructor(readonly row: ModelVersionRow) {
    super(`version ${row.number} of model ${row.model_id} was already made from this upload`);
  }
}

/** What a version upload works with. */
export interface VersionUploadContext {
  db: Db;
  blobs: BlobStore;
  queue: JobQueue;
  logger: AppLogger;
  events: EventPublisher;
}

/**
 * Records version n+1 of the model and its held conversion job in one transaction, stores its file in the
 * version's folder (removing the row again when that fails), announces it and lets the job run. 404 when the
 * model does not exist. The temporary file is gone when this settles.
 */
export async function uploadVersion(
  context: VersionUploadContext,
  modelId: string,
  upload: NewVersionUpload,
): Promise<ModelVersionRow> {
  const { db, blobs, queue, logger, events } = context;
  const { file } = upload;
  try {
    const detected = upload.detected ?? (await judgeLoneFile(file));
    const unit = declared(upload.unit, Object.keys(LENGTH_UNITS), 'unit');
    const upAxis = declared(upload.up, UP_AXES, 'up');
    const record = () =>
      db.transaction().execute(async (trx) => {
        const created = await createVersionRepository(trx).create(
          modelId,
          {
            original_filename: upload.originalFilename ?? file.filename,
            format: detected.format,
            file_size: file.size,
            source_entry: detected.entry ?? null,
            unit,
            up_axis: upAxis,
            upload_id: upload.uploadId ?? null,
          },
          (number) => sourceKey(modelId, file.filename, versionFolder(modelId, number)),
          upload.author,
        );
        if (!created) throw new ApiError(404, MODEL_NOT_FOUND);
        const job = await queue.enqueue(
          JobName.ConvertModel,
          { model_id: modelId, version: created.number },
          {
            subject: versionJobSubject(modelId, created.number),
            dedupeKey: `convert:${modelId}:v${created.number}`,
            delayMs: UPLOAD_HOLD_MS,
            transaction: trx,
          },
        );
        return { row: created, jobId: job.id };
      });
    const { row, jobId } = await recordNumbered(record, async () =>
      upload.uploadId === undefined ? undefined : createVersionRepository(db).madeBy(upload.uploadId),
    ).catch((error: unknown) => {
      throw storageFullOr(error);
    });
    try {
      await blobs.putFile(row.source_key, file.path);
    } catch (error) {
      await createVersionRepository(db)
        .delete(modelId, row.number, queue)
        .catch((undo: unknown) =>
          logger.error(
            { model_id: modelId, version: row.number, err: undo },
            'could not remove a version whose upload failed to store',
          ),
        );
      // Never below 2: version 1 is made with its model, so a posted one always has a folder of its own.
      if (row.number > 1) await blobs.deletePrefix(versionFolder(modelId, row.number)).catch(() => {});
      throw storageFullOr(error);
    }
    await events.publish('model.version.created', {
      model_id: modelId,
      version: row.number,
      based_on: row.based_on,
    });
    await queue
      .promote(jobId)
      .catch((error: unknown) =>
        logger.warn(
          { model_id: modelId, version: row.number, err: error },
          'could not start the conversion at once; it starts when its hold ends',
        ),
      );
    return row;
  } finally {
    await fsp.rm(file.path, { force: true });
  }
}

/**
 * Runs `record` again when a concurrent post took the number it chose (two versions posted at once on PostgreSQL
 * both read the same highest number), so each gets the next one instead of an error; unless the index that stopped
 * it is the upload's, which a concurrent copy of the request used first (`madeAlready` finds its version).
 */
async function recordNumbered<T>(
  record: () => Promise<T>,
  madeAlready: () => Promise<ModelVersionRow | undefined>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await record();
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      const made = await madeAlready();
      if (made) throw new VersionMadeAlready(made);
      if (attempt >= 5) throw error;
    }
  }
}
