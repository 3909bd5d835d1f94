import { buffer } from 'node:stream/consumers';
import type { AppLogger } from '../logger.ts';
import type { FailureHandler, JobHandler, JobName } from '../jobs/job-types.ts';
import { PinoStepLogger } from '../pipeline/step-logger.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { CatalogService } from './catalog-service.ts';
import { storedLods } from './model-rows.ts';
import type { ModelRepository } from './repository.ts';
import { renderWithBoundMaterials, thumbnailLevel, type ThumbnailDependencies } from './thumbnails.ts';

/** What the thumbnail job needs. */
export interface ThumbnailJobDependencies extends ThumbnailDependencies {
  models: ModelRepository;
  blobs: BlobStore;
  catalog: CatalogService;
  logger: AppLogger;
}

/** The handler of `render-thumbnail` jobs: renders the model's current LOD 0 with its bound materials. */
export function createRenderThumbnailJob(deps: ThumbnailJobDependencies): {
  run: JobHandler<typeof JobName.RenderThumbnail>;
  failed: FailureHandler<typeof JobName.RenderThumbnail>;
} {
  const { models, blobs, catalog, logger } = deps;
  return {
    async run(job) {
      const modelId = job.payload.model_id;
      const model = await models.get(modelId);
      // Deleted, or reprocessing since the request: the conversion renders a fresh thumbnail itself.
      if (!model || model.status !== 'completed') return;
      const lods = storedLods(model);
      if (lods.length === 0) return;
      const lod = thumbnailLevel(lods);
      const glb = await buffer(await blobs.read(lod.key));
      const parts = await models.parts(modelId);
      const png = await renderWithBoundMaterials(
        deps,
        glb,
        parts.map((part) => part.group_id),
        new PinoStepLogger(logger, { model_id: modelId, job_id: job.id }),
      );
      await catalog.replaceThumbnail(modelId, png, 'png');
      logger.info({ model_id: modelId, job_id: job.id }, 'thumbnail regenerated');
    },
    async failed(job, error) {
      logger.error(
        { model_id: job.payload.model_id, job_id: job.id, err: error.message },
        'thumbnail regeneration failed',
      );
    },
  };
}
