import fsp from 'node:fs/promises';
import path from 'node:path';
import { isDatabaseUnavailable } from '../../db/unavailable.ts';
import type { AppLogger } from '../../logger.ts';
import {
  PermanentJobError,
  type FailureHandler,
  type JobHandler,
  type JobName,
} from '../../jobs/job-types.ts';
import type { LodCompression } from '../../pipeline/lods/compress-lod.ts';
import { lapTimer } from '../../pipeline/lap-timer.ts';
import type { LodTextureFormat } from '../../pipeline/lods/texture-ladder.ts';
import { ConversionError } from '../../pipeline/types.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { StorageUnavailableError } from '../../storage/storage-unavailable.ts';
import type { EventPublisher } from '../../events/event-publisher.ts';
import type { CatalogService } from '../catalog-service.ts';
import { modelEventData } from '../model-events.ts';
import {
  fetchSource,
  removeReplacedLods,
  removeReplacedTileset,
  removeUnrecordedTileset,
  storeLods,
  storeTileset,
} from './conversion-files.ts';
import { progressWriter } from './conversion-progress.ts';
import { conversionRequest } from './conversion-request.ts';
import { modelPrefix } from '../lod-keys.ts';
import { convertVersion, failVersion } from './convert-version.ts';
import type { VersionRepository } from '../versions/repository.ts';
import { versionFolder } from '../versions/schemas.ts';
import { storedLods } from '../schemas.ts';
import type { ModelRepository } from '../repository.ts';
import type { StoredLod } from './conversion-record.ts';
import type { ModelRow } from '../../db/database.ts';
import type { ConversionPool, PooledFileConversion } from '../../threads/pool-types.ts';
import type { ThumbnailDependencies } from '../thumbnails/thumbnails.ts';

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
  /** Models with more triangles also get a 3D Tiles tileset (`TILES_ABOVE_TRIANGLES`; 0: every model). */
  tilesAboveTriangles: number;
  /** Geometry compression of every level (`GLB_COMPRESSION`): lossless on LOD 0, quantized on LOD 1 and 2. */
  compressLods: LodCompression;
  /** Textures per level (`LOD_TEXTURES`): resized and WebP-encoded, or kept as they came. */
  lodTextures: LodTextureFormat;
  /** Where progress, completion and failure are announced. */
  events: EventPublisher;
  /** The model's versions: a job with a `version` converts that one, and the model's own keeps its row. */
  versions: VersionRepository;
}

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

/**
 * The handler of `convert-model` jobs: upload → conversion and thumbnail in a pool thread → stored LODs, tileset,
 * parts, thumbnail.
 */
export function createConvertModelJob(deps: ConvertJobDependencies): {
  run: JobHandler<typeof JobName.ConvertModel>;
  failed: FailureHandler<typeof JobName.ConvertModel>;
} {
  const { models, blobs, logger, events } = deps;

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
      if (job.payload.version !== undefined) {
        try {
          await convertVersion(deps, job, job.payload.version, signal);
        } catch (error) {
          if (error instanceof ConversionError) throw new PermanentJobError(error.message);
          throw error;
        }
        return;
      }
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
        const source = await fetchSource(blobs, model, workDir);
        // A reprocess of a later version keeps the ids its parts got when that version was converted.
        const number = model.current_version;
        const lap = lapTimer();
        const result = await deps.pool.convert(
          conversionRequest(deps, {
            modelId,
            source,
            workDir,
            signal,
            logContext: { model_id: modelId, job_id: job.id },
            ...(number > 1 && {
              continues: { version: number, previousParts: await deps.versions.parts(modelId, number) },
            }),
            onProgress: progressWriter(models, modelId, () => announce('model.progress', modelId)),
          }),
        );
        const conversionMs = lap();
        // Into the folder of the version the model serves, so the version keeps its own files.
        const folder = versionFolder(modelId, model.current_version);
        const lods = await storeLods(blobs, modelId, result, folder);
        const tilesetKey = result.tileset
          ? await storeTileset(blobs, modelId, result.tileset, model.tileset_key, folder)
          : null;
        const storeMs = lap();
        const { previous, stored } = await recordConversion(
          deps,
          { model, jobId: job.id, lods, tilesetKey, result },
          () => announce('model.progress', modelId),
        );
        const recordMs = lap();
        if (!stored) {
          // Deleted during conversion: drop what was just written.
          await blobs.deletePrefix(modelPrefix(modelId));
          return;
        }
        await announce('model.completed', modelId);
        await Promise.all([
          removeReplacedLods(blobs, storedLods(previous), lods),
          removeReplacedTileset(blobs, previous.tileset_key, tilesetKey),
        ]);
        logger.info(
          {
            model_id: modelId,
            job_id: job.id,
            triangles: result.triangle_count,
            parts: result.parts.length,
            ...(result.tileset && { tiles: result.tileset.tile_count }),
            // Where the job's time went: the conversion thread (the thumbnail and the parts' passage included),
            // the files stored, and the rows written in the completing transaction.
            conversion_ms: conversionMs,
            store_ms: storeMs,
            record_ms: recordMs,
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
      const systemError = isSystemError(error);
      if (job.payload.version !== undefined) {
        if (systemError)
          logger.error(
            { model_id: modelId, version: job.payload.version, job_id: job.id, err: error },
            'version conversion failed',
          );
        const message = systemError ? SYSTEM_FAILURE : error.message;
        await failVersion(deps, modelId, job.payload.version, message);
        return;
      }
      if (systemError) {
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
        systemError ? SYSTEM_FAILURE : error.message,
      );
      if (recorded)
        await deps.versions.recordCurrentFailed(modelId, systemError ? SYSTEM_FAILURE : error.message);
      if (!recorded) {
        // Deleted during a conversion that stored some levels and then failed (storage going away, say): those
        // files were written after the delete cleared the prefix. A throw here is retried like the record.
        await blobs.deletePrefix(modelPrefix(modelId));
        return;
      }
      await announce('model.failed', modelId);
    },
  };
}

/**
 * Sets the conversion's thumbnail and records its outputs; returns the row as it was before and as recorded
 * (undefined when the model was deleted meanwhile). A tileset stored whole is removed when this fails, as nothing
 * would ever serve or remove it, unless it is the model's recorded one made again by a reprocess.
 */
async function recordConversion(
  deps: ConvertJobDependencies,
  conversion: {
    model: ModelRow;
    jobId: string;
    lods: StoredLod[];
    tilesetKey: string | null;
    result: PooledFileConversion;
  },
  announceProgress: () => Promise<void>,
): Promise<{ previous: ModelRow; stored: Awaited<ReturnType<ModelRepository['complete']>> }> {
  const { model, jobId, lods, tilesetKey, result } = conversion;
  const modelId = model.id;
  try {
    await deps.models.setProgress(modelId, 96);
    await announceProgress();
    // Set before completing, so a client that sees `completed` sees the new thumbnail too. A model without a new
    // thumbnail is still a good model; regeneration can try again.
    if (result.thumbnail) {
      await deps.catalog.replaceThumbnail(modelId, result.thumbnail, 'png', { source: 'rendered' });
    } else {
      deps.logger.warn(
        { model_id: modelId, job_id: jobId, err: result.thumbnailError },
        'thumbnail rendering failed',
      );
    }
    const previous = (await deps.models.get(modelId)) ?? model;
    const stored = await deps.models.complete(modelId, { ...result, lods, tileset_key: tilesetKey });
    return { previous, stored };
  } catch (error) {
    if (tilesetKey) await removeUnrecordedTileset(deps.blobs, tilesetKey, model.tileset_key);
    throw error;
  }
}
