import fsp from 'node:fs/promises';
import type { DeclaredUp, LengthUnit } from '../pipeline/types.ts';
import path from 'node:path';
import type { ModelRow } from '../db/database.ts';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import type { AppLogger } from '../logger.ts';
import { PermanentJobError, type FailureHandler, type JobHandler, type JobName } from '../jobs/job-types.ts';
import type { LodCompression } from '../pipeline/lods/compress-lod.ts';
import type { LodTextureFormat } from '../pipeline/lods/texture-ladder.ts';
import { prepareSource } from '../pipeline/prepare-source.ts';
import { PinoStepLogger } from '../pipeline/step-logger.ts';
import { ConversionError, type ImportSource } from '../pipeline/types.ts';
import type { ConversionPool, PooledFileConversion } from '../threads/pool-types.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { StorageUnavailableError } from '../storage/storage-unavailable.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import type { CatalogService } from './catalog-service.ts';
import { modelEventData } from './model-events.ts';
import { lodKeyOfHash, modelPrefix } from './lod-keys.ts';
import { uploadFormat } from './model-rows.ts';
import { storedLods } from './schemas.ts';
import type { ModelRepository, StoredLod } from './repository.ts';
import { boundColours, type ThumbnailDependencies } from './thumbnails.ts';

/** What the conversion job needs. */
export interface ConvertJobDependencies extends ThumbnailDependencies {
  models: ModelRepository;
  blobs: BlobStore;
  catalog: CatalogService;
  logger: AppLogger;
  /** Folder for per-job working copies. */
  workDir: string;
  /** The warm conversion threads, which also render the thumbnail from the LOD they hold. */
  pool: ConversionPool;
  /** Most triangles a model may have (`CONVERSION_MAX_TRIANGLES`). */
  maxTriangles: number;
  /** Geometry compression of every level (`GLB_COMPRESSION`): lossless on LOD 0, quantized on LOD 1 and 2. */
  compressLods: LodCompression;
  /** Textures per level (`LOD_TEXTURES`): resized and WebP-encoded, or kept as they came. */
  lodTextures: LodTextureFormat;
  /** Where progress, completion and failure are announced. */
  events: EventPublisher;
}

// Progress writes are throttled: the database need not see every percent.
const PROGRESS_INTERVAL_MS = 500;
// Progress events are throttled further: every stream and webhook receives each one.
const PROGRESS_EVENT_INTERVAL_MS = 1_000;

/** The `error` of a model whose conversion failed on the server's side rather than on its file. */
export const SYSTEM_FAILURE =
  'The conversion failed on a storage or server error, not on the file; reprocess the model to try again';

/**
 * A Node system error (file system, network), a storage or database outage, or a stored file or object gone
 * missing (`ENOENT`, as the S3 store reports a missing object too): the server's failure, not the file's.
 */
export function isSystemError(error: Error): boolean {
  const { syscall, code } = error as NodeJS.ErrnoException;
  return (
    typeof syscall === 'string' ||
    code === 'ENOENT' ||
    error instanceof StorageUnavailableError ||
    isDatabaseUnavailable(error)
  );
}

/** The handler of `convert-model` jobs: upload → conversion and thumbnail in a pool thread → stored LODs, parts, thumbnail. */
export function createConvertModelJob(deps: ConvertJobDependencies): {
  run: JobHandler<typeof JobName.ConvertModel>;
  failed: FailureHandler<typeof JobName.ConvertModel>;
} {
  const { models, blobs, catalog, logger, events } = deps;

  /** Announces the model's state as stored now. */
  const announce = async (
    type: 'model.progress' | 'model.completed' | 'model.failed',
    modelId: string,
  ): Promise<void> => {
    const row = await models.get(modelId).catch(() => undefined);
    if (row) await events.publish(type, modelEventData(row));
  };

  return {
    async run(job, signal) {
      const modelId = job.payload.model_id;
      const model = await models.get(modelId);
      if (!model) {
        // Deleted while queued, or between the tries of a job whose earlier try stored files and then failed:
        // what that try wrote under the model's prefix went after the delete had cleared it.
        await blobs.deletePrefix(modelPrefix(modelId));
        return;
      }
      await models.setStatus(modelId, 'processing', 0);
      await announce('model.progress', modelId);
      const workDir = await fsp.mkdtemp(path.join(deps.workDir, `convert-${modelId}-`));
      try {
        const source = await fetchSource(model, workDir);
        let lastWrite = 0;
        let lastEvent = Date.now();
        let announced = 0;
        const result = await deps.pool.convert({
          modelId,
          source,
          // The thread writes the LODs here: their bytes never wait in this thread's heap for a collection.
          lodDir: path.join(workDir, 'lods'),
          compressLods: deps.compressLods,
          lodTextures: deps.lodTextures,
          maxTriangles: deps.maxTriangles,
          signal,
          logger: new PinoStepLogger(logger, { model_id: modelId, job_id: job.id }),
          thumbnailColours: (groupIds) => boundColours(deps.materials, groupIds),
          onProgress: (percent, stage) => {
            const now = Date.now();
            if (now - lastWrite < PROGRESS_INTERVAL_MS && stage !== 'thumbnail') return;
            lastWrite = now;
            // The conversion is the first 90 %, the thumbnail and storing the rest.
            const overall = stage === 'thumbnail' ? 92 : Math.min(90, Math.round(percent * 0.9));
            const written = models.setProgress(modelId, overall);
            written.catch(() => {});
            if (now - lastEvent < PROGRESS_EVENT_INTERVAL_MS || overall <= announced) return;
            lastEvent = now;
            announced = overall;
            void written.then(() => announce('model.progress', modelId)).catch(() => {});
          },
        });
        const lods = await storeLods(modelId, result);
        await models.setProgress(modelId, 96);
        await announce('model.progress', modelId);
        // Set before completing, so a client that sees `completed` sees the new thumbnail too.
        await replaceThumbnail(modelId, job.id, result);
        const previous = (await models.get(modelId)) ?? model;
        const stored = await models.complete(modelId, { ...result, lods });
        if (!stored) {
          // Deleted during conversion: drop what was just written.
          await blobs.deletePrefix(modelPrefix(modelId));
          return;
        }
        await announce('model.completed', modelId);
        await removeReplacedLods(storedLods(previous), lods);
        logger.info(
          {
            model_id: modelId,
            job_id: job.id,
            triangles: result.triangle_count,
            parts: result.parts.length,
            // Set when the input was big enough to convert in a process of its own: what that process peaked at.
            ...(result.processPeakRssMb !== undefined && { process_peak_rss_mb: result.processPeakRssMb }),
          },
          'model converted',
        );
      } catch (error) {
        if (error instanceof ConversionError) throw new PermanentJobError(error.message);
        throw error;
      } finally {
        await fsp.rm(workDir, { recursive: true, force: true });
      }
    },

    async failed(job, error) {
      const modelId = job.payload.model_id;
      if (isSystemError(error)) {
        // Its message names server paths or hosts: the user is told what to do, the log keeps the details.
        logger.error(
          { model_id: modelId, job_id: job.id, err: error },
          'conversion failed on a storage or system error',
        );
      }
      const recorded = await models.setStatus(
        modelId,
        'failed',
        0,
        isSystemError(error) ? SYSTEM_FAILURE : error.message,
      );
      if (!recorded) {
        // Deleted during a conversion that stored some levels and then failed (storage going away, say): those
        // files were written after the delete cleared the prefix. A throw here is retried like the record.
        await blobs.deletePrefix(modelPrefix(modelId));
        return;
      }
      await announce('model.failed', modelId);
    },
  };

  /**
   * Copies the upload into the job's folder and, for a zip, extracts it safely; returns the model file to read,
   * of the format the upload was judged to be.
   */
  async function fetchSource(model: ModelRow, workDir: string): Promise<ImportSource> {
    const local = path.join(workDir, 'upload', path.basename(model.source_key));
    await fsp.mkdir(path.dirname(local), { recursive: true });
    await blobs.download(model.source_key, local);
    const source = await prepareSource({ file: local, upload: uploadFormat(model), workDir });
    // What the uploader declared for a file that states no unit or axis.
    return {
      ...source,
      ...(model.unit ? { unit: model.unit as LengthUnit } : {}),
      ...(model.up_axis ? { up: model.up_axis as DeclaredUp } : {}),
    };
  }

  async function storeLods(modelId: string, result: PooledFileConversion): Promise<StoredLod[]> {
    const lods: StoredLod[] = [];
    for (const lod of result.lods) {
      const previous = lods[lods.length - 1];
      // A level that could not shrink points at the level before it instead of storing a copy.
      if (!lod.reduced && previous) {
        lods.push({ ...previous, level: lod.level, reduced: false });
        continue;
      }
      const key = lodKeyOfHash(modelId, lod.level, lod.sha256);
      const { size } = await blobs.putFile(key, lod.file);
      lods.push({
        level: lod.level,
        key,
        triangle_count: lod.triangle_count,
        size,
        error: lod.error,
        reduced: lod.reduced,
      });
    }
    return lods;
  }

  async function replaceThumbnail(
    modelId: string,
    jobId: string,
    result: PooledFileConversion,
  ): Promise<void> {
    if (!result.thumbnail) {
      // A model without a new thumbnail is still a good model; regeneration can try again.
      logger.warn(
        { model_id: modelId, job_id: jobId, err: result.thumbnailError },
        'thumbnail rendering failed',
      );
      return;
    }
    await catalog.replaceThumbnail(modelId, result.thumbnail, 'png', { source: 'rendered' });
  }

  /** Removes the LOD files of the conversion before that this one did not write again. */
  async function removeReplacedLods(oldLods: StoredLod[], newLods: StoredLod[]): Promise<void> {
    const keep = new Set(newLods.map((lod) => lod.key));
    const stale = oldLods.map((lod) => lod.key).filter((key) => !keep.has(key));
    await Promise.all(stale.map((key) => blobs.delete(key)));
  }
}
