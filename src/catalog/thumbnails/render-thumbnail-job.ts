import { buffer } from 'node:stream/consumers';
import type { AppLogger } from '../../logger.ts';
import type { FailureHandler, JobHandler, JobName } from '../../jobs/job-types.ts';
import { PinoStepLogger } from '../../pipeline/step-logger.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { CatalogService } from '../catalog-service.ts';
import { storedLods } from '../schemas.ts';
import type { ModelRepository } from '../repository.ts';
import { thumbnailLevel } from '../../render/thumbnail-level.ts';
import { renderWithBoundMaterials, type ThumbnailDependencies } from './thumbnails.ts';
import { tilesetThumbnailGlb } from './tileset-thumbnail.ts';

/** What the thumbnail job needs. */
export interface ThumbnailJobDependencies extends ThumbnailDependencies {
  models: ModelRepository;
  blobs: BlobStore;
  catalog: CatalogService;
  logger: AppLogger;
  /** How long one render may hold its model before another may start (the job's time limit is far below). */
  renderLeaseMs?: number;
}

/** Wait before trying again a render whose model another render holds. */
export const RENDER_BUSY_RETRY_MS = 1000;
const RENDER_LEASE_MS = 5 * 60_000;

/**
 * The handler of `render-thumbnail` jobs: renders the model with its bound materials, a tiled model from a cut
 * through its tile tree and any other from its most detailed level light enough to draw. One render
 * per model at a time, whichever queue and however many workers: a job that finds its model held by another
 * render queues itself again a moment later (joining any copy already waiting) instead of rendering alongside.
 */
export function createRenderThumbnailJob(deps: ThumbnailJobDependencies): {
  run: JobHandler<typeof JobName.RenderThumbnail>;
  failed: FailureHandler<typeof JobName.RenderThumbnail>;
} {
  const { models, blobs, catalog, logger } = deps;
  const leaseMs = deps.renderLeaseMs ?? RENDER_LEASE_MS;
  return {
    async run(job) {
      const modelId = job.payload.model_id;
      const afterBindings = job.payload.after_bindings === true;
      const model = await models.get(modelId);
      // Deleted, or reprocessing since the request: the conversion renders a fresh thumbnail itself.
      if (!model || model.status !== 'completed') return;
      // A person's own picture outlives binding changes; only Regenerate replaces it.
      if (afterBindings && model.thumbnail_source === 'uploaded') return;
      const lods = storedLods(model);
      if (lods.length === 0) return;
      if (!(await models.claimThumbnailRender(modelId, leaseMs))) {
        await catalog.queueThumbnailRenderAgain(job.payload, RENDER_BUSY_RETRY_MS);
        logger.debug({ model_id: modelId, job_id: job.id }, 'thumbnail render waits for the one under way');
        return;
      }
      try {
        const glb = await thumbnailSource(blobs, model.tileset_key, lods);
        const parts = await models.parts(modelId);
        const png = await renderWithBoundMaterials(
          deps,
          glb,
          parts.map((part) => part.group_id),
          new PinoStepLogger(logger, { model_id: modelId, job_id: job.id }),
        );
        await catalog.replaceThumbnail(modelId, png, 'png', {
          source: 'rendered',
          keepUploaded: afterBindings,
        });
      } finally {
        await models.releaseThumbnailRender(modelId);
      }
      logger.info(
        { model_id: modelId, job_id: job.id, after_bindings: afterBindings },
        'thumbnail regenerated',
      );
    },
    async failed(job, error) {
      logger.error(
        { model_id: job.payload.model_id, job_id: job.id, err: error.message },
        'thumbnail regeneration failed',
      );
    },
  };
}

/**
 * The GLB a thumbnail is drawn from: the tiles that fit the thumbnail's budget when the model has a tileset (its
 * LOD 0, which may be tens of millions of triangles, is never read), otherwise the level {@link thumbnailLevel}
 * picks.
 */
export async function thumbnailSource(
  blobs: BlobStore,
  tilesetKey: string | null,
  lods: ReturnType<typeof storedLods>,
): Promise<Uint8Array> {
  if (tilesetKey) return (await tilesetThumbnailGlb(blobs, tilesetKey)).glb;
  return buffer(await blobs.read(thumbnailLevel(lods).key));
}
