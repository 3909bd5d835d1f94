import type { DialectName } from '../db/create-db.ts';
import type { Db, ModelRow, ModelVersionRow } from '../db/database.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import { ApiError } from '../http/api-error.ts';
import { JobName } from '../jobs/job-types.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { AppLogger } from '../logger.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { isDiskFull } from '../storage/disk-full.ts';
import { createVersionRepository } from './versions/repository.ts';
import { versionJobSubject } from './versions/schemas.ts';
import { modelPrefix } from './lod-keys.ts';
import { modelEventData } from './model-events.ts';
import { uploadModel, type NewUpload } from './intake/model-upload.ts';
import { createModelRepository, type ModelMetadata } from './repository.ts';
import { MODEL_NOT_FOUND } from './schemas.ts';
import { findModelMadeBy, type RequestKey } from './intake/request-keys.ts';
import { createThumbnailOperations } from './thumbnails/thumbnail-operations.ts';
import { uploadVersion, type NewVersionUpload } from './intake/version-upload.ts';

export { UPLOAD_HOLD_MS, type NewUpload } from './intake/model-upload.ts';
export { STORAGE_FULL } from './storage-full.ts';

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

/** Answer to a reprocess of a model that is pending or processing. */
export const ALREADY_CONVERTING = 'Model is already being converted';

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

  /** The model's rows and queued jobs (its versions' conversions too) go in one transaction; false when it did not exist. */
  const deleteRecords = (id: string) =>
    db.transaction().execute(async (trx) => {
      await queue.cancelQueued(id, { transaction: trx });
      for (const version of await createVersionRepository(trx).list(id)) {
        await queue.cancelQueued(versionJobSubject(id, version.number), { transaction: trx });
      }
      return modelsIn(trx).delete(id);
    });

  return {
    ...createThumbnailOperations({ models, blobs, queue, events }),

    /**
     * Judges the file's format, records the model and its conversion job in one transaction, then moves the file
     * into storage and lets the job run (see {@link uploadModel}).
     */
    upload(upload: NewUpload): Promise<ModelRow> {
      return uploadModel({ db, blobs, queue, logger, events, modelsIn, deleteRecords }, upload);
    },

    /**
     * Records a new version of a model from an upload and queues its conversion beside the current version
     * (see {@link uploadVersion}); 404 when the model does not exist.
     */
    addVersion(modelId: string, upload: NewVersionUpload): Promise<ModelVersionRow> {
      return uploadVersion({ db, blobs, queue, logger, events }, modelId, upload);
    },

    /** The version a finished resumable upload made already, of any model, or undefined. */
    versionMadeBy(uploadId: string): Promise<ModelVersionRow | undefined> {
      return createVersionRepository(db).madeBy(uploadId);
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
          throw exists ? new ApiError(409, ALREADY_CONVERTING) : new ApiError(404, MODEL_NOT_FOUND);
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
  };
}
