import { randomUUID } from 'node:crypto';
import { LENGTH_UNITS, UP_AXES } from '../pipeline/types.ts';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { DialectName } from '../db/create-db.ts';
import type { Db, ModelRow } from '../db/database.ts';
import { ApiError } from '../http/api-error.ts';
import { JobName, type JobPayloads } from '../jobs/job-types.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { AppLogger } from '../logger.ts';
import type { DetectedFormat } from '../pipeline/detect-format.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { UploadedFile } from '../uploads/schemas.ts';
import { isDiskFull } from '../storage/disk-full.ts';
import type { ThumbnailType } from './image-type.ts';
import { modelPrefix, sourceKey } from './lod-keys.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import { modelEventData } from './model-events.ts';
import { storedLods } from './schemas.ts';
import { createModelRepository, type ModelMetadata, type ThumbnailSource } from './repository.ts';
import { checkThumbnailImage } from './thumbnail-image.ts';
import { thumbnailKey } from './thumbnails.ts';
import { judgeLoneFile } from './upload-bundle.ts';
import {
  findModelMadeBy,
  isUniqueViolation,
  ModelMadeAlready,
  releaseExpiredKey,
  requestKeyColumns,
  type RequestKey,
} from './request-keys.ts';

/** What the catalog service works with. */
export interface CatalogServiceDependencies {
  /** The service's database; the embedded job queue lives in it too, so a row and its job commit together. */
  database: { db: Db; dialect: DialectName };
  blobs: BlobStore;
  queue: JobQueue;
  logger: AppLogger;
  /** Where the service announces the changes it makes. */
  events: EventPublisher;
}

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

/** Answer to a reprocess of a model that is pending or processing. */
export const ALREADY_CONVERTING = 'Model is already being converted';
/** Answer to an upload or thumbnail that meets a full disk. */
export const STORAGE_FULL = 'Not enough storage space left; delete models or free space and try again';

/**
 * How long an upload's conversion job is held back while its file is moved into storage. The upload promotes it
 * as soon as the file is there; only a process that dies in between leaves it waiting this long, after which the
 * job finds no upload and fails the model.
 */
export const UPLOAD_HOLD_MS = 60_000;

/** The catalog service's operations; routes and jobs call these, never the storage and queue directly. */
export type CatalogService = ReturnType<typeof createCatalogService>;

/**
 * The one place the catalog changes models together with their files and jobs. Each change writes its rows and
 * jobs in one transaction, and moves files so that a failure at any step leaves no row without its file and no
 * file without its row (see the README's "Life of an upload").
 */
export function createCatalogService(deps: CatalogServiceDependencies) {
  const { blobs, queue, logger, events } = deps;
  const { db, dialect } = deps.database;
  const models = createModelRepository(deps.database);
  /** The repository inside a transaction. */
  const modelsIn = (trx: Db) => createModelRepository({ db: trx, dialect });

  /** The model's rows and queued jobs go in one transaction; false when it did not exist. */
  const deleteRecords = (id: string) =>
    db.transaction().execute(async (trx) => {
      await queue.cancelQueued(id, { transaction: trx });
      return modelsIn(trx).delete(id);
    });

  return {
    /**
     * Judges the file's format, records the model and its conversion job in one transaction, then moves the file
     * into storage and lets the job run. A failure before the commit leaves nothing; a failure to store the file
     * removes the model again; once both are done the model is the answer, its conversion starting at the latest
     * when the hold ends. The temporary file is gone when this settles. When a concurrent copy of the same
     * keyed request committed its model first, throws {@link ModelMadeAlready} with that model.
     */
    async upload(upload: NewUpload): Promise<ModelRow> {
      const { file } = upload;
      try {
        const detected = upload.detected ?? (await judgeLoneFile(file));
        const originalFilename = upload.originalFilename ?? file.filename;
        const name = (upload.name ?? '').trim() || path.parse(originalFilename).name || originalFilename;
        const description = upload.description ?? '';
        if (name.length > 255) throw new ApiError(400, 'name must be a string of 1 to 255 characters');
        if (description.length > 10_000)
          throw new ApiError(400, 'description must be at most 10000 characters');
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
            throw isDiskFull(error) ? new ApiError(507, STORAGE_FULL) : error;
          });
        try {
          await blobs.putFile(key, file.path);
        } catch (error) {
          await deleteRecords(id).catch((undo: unknown) =>
            // The held job then finds no upload and fails the model with SYSTEM_FAILURE after its attempts.
            logger.error(
              { model_id: id, err: undo },
              'could not remove a model whose upload failed to store',
            ),
          );
          await blobs.deletePrefix(modelPrefix(id)).catch(() => {});
          throw isDiskFull(error) ? new ApiError(507, STORAGE_FULL) : error;
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
    },

    /** The model a keyed request made already (within its key's window), or undefined. */
    madeBy(key: RequestKey): Promise<ModelRow | undefined> {
      return findModelMadeBy(db, key);
    },

    /** Puts a converted or failed model back to `pending` and queues its conversion, in one transaction. */
    async reprocess(id: string): Promise<ModelRow> {
      const { row, jobId } = await db.transaction().execute(async (trx) => {
        const reset = await modelsIn(trx).resetForReprocess(id);
        if (!reset) {
          const exists = await modelsIn(trx).get(id);
          throw exists ? new ApiError(409, ALREADY_CONVERTING) : new ApiError(404, 'Model not found');
        }
        const job = await queue.enqueue(
          JobName.ConvertModel,
          { model_id: id },
          { subject: id, dedupeKey: `convert:${id}`, transaction: trx },
        );
        return { row: reset, jobId: job.id };
      });
      await queue.promote(jobId);
      await events.publish('model.updated', modelEventData(row));
      return row;
    },

    /** Changes a model's name, description, tags or declared frame; undefined when it does not exist. */
    async updateMetadata(id: string, metadata: ModelMetadata): Promise<ModelRow | undefined> {
      const row = await models.updateMetadata(id, metadata);
      if (row) await events.publish('model.updated', modelEventData(row));
      return row;
    },

    /**
     * Deletes a model's rows and queued jobs, then its files. On a full disk the database may be unable to write
     * even a delete, so the files go first there and the delete is tried again. False when there was no model.
     */
    async remove(id: string): Promise<boolean> {
      let deleted: boolean;
      try {
        deleted = await deleteRecords(id);
      } catch (error) {
        if (!isDiskFull(error)) throw error;
        logger.warn({ model_id: id }, 'disk full: removing the model files before its record');
        if (!(await models.get(id))) return false;
        await blobs.deletePrefix(modelPrefix(id));
        deleted = await deleteRecords(id);
      }
      if (deleted) {
        await blobs.deletePrefix(modelPrefix(id));
        await events.publish('model.deleted', { model_id: id });
      }
      return deleted;
    },

    /**
     * Checks an uploaded thumbnail (type, dimensions, a full decode) and makes it the model's. Undefined when the
     * model does not exist.
     */
    async uploadThumbnail(id: string, bytes: Uint8Array): Promise<ModelRow | undefined> {
      const type = await checkThumbnailImage(bytes);
      return this.replaceThumbnail(id, bytes, type, { source: 'uploaded' });
    },

    /**
     * Stores a thumbnail under a new content-named key, points the model at it and removes the one before (the
     * new one when the model is gone, or keeps an uploaded one with `keepUploaded`). Undefined when the model
     * does not exist.
     */
    async replaceThumbnail(
      id: string,
      bytes: Uint8Array,
      type: ThumbnailType,
      options: { source: ThumbnailSource; keepUploaded?: boolean },
    ): Promise<ModelRow | undefined> {
      const key = thumbnailKey(id, bytes, type);
      try {
        await blobs.putBytes(key, bytes);
      } catch (error) {
        throw isDiskFull(error) ? new ApiError(507, STORAGE_FULL) : error;
      }
      const replaced = await models.setThumbnail(id, key, options.source, options);
      if (!replaced || replaced.kept) {
        if (replaced?.previous !== key) await blobs.delete(key);
        return replaced?.row;
      }
      if (replaced.previous && replaced.previous !== key) await blobs.delete(replaced.previous);
      await events.publish('thumbnail.updated', { model_id: id });
      return replaced.row;
    },

    /** Queues a render of the model's thumbnail with its current materials; one queued render per model. */
    async queueThumbnailRender(id: string, modelUrl: string): Promise<void> {
      await queue.enqueue(
        JobName.RenderThumbnail,
        { model_id: id, model_url: modelUrl },
        { subject: id, dedupeKey: renderKey(id, false) },
      );
    },

    /** Queues a thumbnail job again under the key it came with (a render of its model was under way). */
    async queueThumbnailRenderAgain(
      payload: JobPayloads['render-thumbnail'],
      delayMs: number,
    ): Promise<void> {
      const id = payload.model_id;
      await queue.enqueue(JobName.RenderThumbnail, payload, {
        subject: id,
        dedupeKey: renderKey(id, payload.after_bindings === true),
        delayMs,
      });
    },

    /**
     * Queues a render of each completed model's thumbnail `delayMs` from now, after its material bindings changed.
     * One such render waits per model (the first change of a burst sets the time; the rest join it), and it reads
     * the bindings when it runs, so it shows every change made before then. Uploaded thumbnails are kept.
     */
    async queueThumbnailRefresh(
      modelIds: readonly string[],
      options: { delayMs: number; baseUrl: string },
    ): Promise<void> {
      for (const id of modelIds) {
        const row = await models.get(id);
        const lod0 = row?.status === 'completed' ? storedLods(row).find((lod) => lod.level === 0) : undefined;
        if (!lod0) continue;
        await queue.enqueue(
          JobName.RenderThumbnail,
          { model_id: id, model_url: blobs.publicUrl(lod0.key, options.baseUrl), after_bindings: true },
          { subject: id, dedupeKey: renderKey(id, true), delayMs: options.delayMs },
        );
      }
    },
  };
}

/**
 * The dedupe key of a model's thumbnail job. Renders asked for and renders after binding changes wait apart, so
 * an explicit Regenerate neither waits out the refresh delay nor inherits a refresh's respect for an upload.
 */
function renderKey(modelId: string, afterBindings: boolean): string {
  return afterBindings ? `thumbnail-refresh:${modelId}` : `thumbnail:${modelId}`;
}

/** A declared form field checked against its allowed values; blank or absent is null (the default). */
function declared(value: string | undefined, allowed: readonly string[], field: string): string | null {
  const trimmed = (value ?? '').trim().toLowerCase();
  if (trimmed === '') return null;
  if (!allowed.includes(trimmed)) throw new ApiError(400, `${field} must be one of ${allowed.join(', ')}`);
  return trimmed;
}
