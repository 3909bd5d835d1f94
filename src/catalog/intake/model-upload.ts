// An upload made a model: its format judged and its fields checked, its row and held conversion job committed
// together, its file moved into storage, and its job let go (see the README's "Life of an upload").
import { randomUUID } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Db, ModelRow } from '../../db/database.ts';
import type { EventPublisher } from '../../events/event-publisher.ts';
import { ApiError } from '../../http/api-error.ts';
import { JobName } from '../../jobs/job-types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { AppLogger } from '../../logger.ts';
import type { DetectedFormat } from '../../pipeline/detect-format.ts';
import { LENGTH_UNITS, UP_AXES } from '../../pipeline/types.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { UploadedFile } from '../../uploads/schemas.ts';
import { modelPrefix, sourceKey } from '../lod-keys.ts';
import { modelEventData } from '../model-events.ts';
import type { createModelRepository } from '../repository.ts';
import {
  findModelMadeBy,
  isUniqueViolation,
  ModelMadeAlready,
  releaseExpiredKey,
  requestKeyColumns,
  type RequestKey,
} from './request-keys.ts';
import { storageFullOr } from '../storage-full.ts';
import { createVersionRepository } from '../versions/repository.ts';
import { judgeLoneFile } from './upload-bundle.ts';

/** An upload as the client sent it. */
export interface NewUpload {
  file: UploadedFile;
  /** Display name; the file name without its extension when blank. */
  name?: string;
  description?: string;
  /** Declared unit and up axis of a file that states none (form fields `unit`, `up`). */
  unit?: string;
  up?: string;
  /**
   * What the file was already judged to be (several files packed into a zip by `prepareBundle`); absent, the file
   * is judged here as a lone upload.
   */
  detected?: DetectedFormat;
  /** The model's `original_filename` when it is not the file's own name (the model file of a packed upload). */
  originalFilename?: string;
  /** What identifies the request, so a concurrent copy of it cannot make a second model (see request-keys.ts). */
  requestKey?: RequestKey;
}

/**
 * How long an upload's conversion job is held back while its file is moved into storage. The upload promotes it
 * as soon as the file is there; only a process that dies in between leaves it waiting this long, after which the
 * job finds no upload and fails the model.
 */
export const UPLOAD_HOLD_MS = 60_000;

/** What an upload works with: the catalog service's database, storage, queue, log and events. */
export interface UploadContext {
  db: Db;
  blobs: BlobStore;
  queue: JobQueue;
  logger: AppLogger;
  events: EventPublisher;
  /** The model repository inside a transaction. */
  modelsIn(trx: Db): ReturnType<typeof createModelRepository>;
  /** Deletes a model's rows and queued jobs in one transaction; false when it did not exist. */
  deleteRecords(id: string): Promise<boolean>;
}

/**
 * Judges the file's format, records the model and its conversion job in one transaction, then moves the file
 * into storage and lets the job run. A failure before the commit leaves nothing; a failure to store the file
 * removes the model again; once both are done the model is the answer, its conversion starting at the latest
 * when the hold ends. The temporary file is gone when this settles. When a concurrent copy of the same
 * keyed request committed its model first, throws {@link ModelMadeAlready} with that model.
 */
export async function uploadModel(context: UploadContext, upload: NewUpload): Promise<ModelRow> {
  const { db, blobs, queue, logger, events, modelsIn, deleteRecords } = context;
  const { file } = upload;
  try {
    const detected = upload.detected ?? (await judgeLoneFile(file));
    const originalFilename = upload.originalFilename ?? file.filename;
    const name = (upload.name ?? '').trim() || path.parse(originalFilename).name || originalFilename;
    const description = upload.description ?? '';
    if (name.length > 255) throw new ApiError(400, 'name must be a string of 1 to 255 characters');
    if (description.length > 10_000) throw new ApiError(400, 'description must be at most 10000 characters');
    const unit = declared(upload.unit, Object.keys(LENGTH_UNITS), 'unit');
    const upAxis = declared(upload.up, UP_AXES, 'up');
    const id = randomUUID();
    const key = sourceKey(id, file.filename);
    const { row, jobId } = await db
      .transaction()
      .execute(async (trx) => {
        await releaseExpiredKey(trx, upload.requestKey);
        const created = await modelsIn(trx).create({
          id,
          name,
          description,
          original_filename: originalFilename,
          format: detected.format,
          file_size: file.size,
          status: 'pending',
          progress: 0,
          source_key: key,
          source_entry: detected.entry ?? null,
          unit,
          up_axis: upAxis,
          lods: '[]',
          tags: '[]',
          ...requestKeyColumns(upload.requestKey),
        });
        await createVersionRepository(trx).createFirst(created);
        const job = await queue.enqueue(
          JobName.ConvertModel,
          { model_id: id },
          { subject: id, dedupeKey: `convert:${id}`, delayMs: UPLOAD_HOLD_MS, transaction: trx },
        );
        return { row: created, jobId: job.id };
      })
      .catch(async (error: unknown) => {
        const key = upload.requestKey;
        const made = key && isUniqueViolation(error) ? await findModelMadeBy(db, key) : undefined;
        if (made) throw new ModelMadeAlready(made);
        throw storageFullOr(error);
      });
    try {
      await blobs.putFile(key, file.path);
    } catch (error) {
      await deleteRecords(id).catch((undo: unknown) =>
        // The held job then finds no upload and fails the model with SYSTEM_FAILURE after its attempts.
        logger.error({ model_id: id, err: undo }, 'could not remove a model whose upload failed to store'),
      );
      await blobs.deletePrefix(modelPrefix(id)).catch(() => {});
      throw storageFullOr(error);
    }
    // Announced before the held job is let go: a worker that starts at once must not report progress on a
    // model no listener has yet heard of.
    await events.publish('model.created', modelEventData(row));
    // The model and its file are stored and its held job runs when the hold ends whatever happens here: a
    // failure to let it go sooner (database or queue away) must not answer an error for a model that exists,
    // or a client without an idempotency key retries and makes a second one.
    await queue
      .promote(jobId)
      .catch((error: unknown) =>
        logger.warn(
          { model_id: id, err: error },
          'could not start the conversion at once; it starts when its hold ends',
        ),
      );
    return row;
  } finally {
    await fsp.rm(file.path, { force: true });
  }
}

/** A declared form field checked against its allowed values; blank or absent is null (the default). */
export function declared(
  value: string | undefined,
  allowed: readonly string[],
  field: string,
): string | null {
  const trimmed = (value ?? '').trim().toLowerCase();
  if (trimmed === '') return null;
  if (!allowed.includes(trimmed)) throw new ApiError(400, `${field} must be one of ${allowed.join(', ')}`);
  return trimmed;
}
