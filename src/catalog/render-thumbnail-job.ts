import { buffer } from 'node:stream/consumers';
import type { AppLogger } from '../logger.ts';
import type { FailureHandler, JobHandler, JobName } from '../jobs/job-types.ts';
import { storedLods } from './model-view.ts';
import type { ModelRepository } from './repository.ts';
import { renderAndStoreThumbnail, thumbnailLevel, type ThumbnailDependencies } from './thumbnails.ts';

/** What the thumbnail job needs. */
export interface ThumbnailJobDependencies extends ThumbnailDependencies {
  models: ModelRepository;
  logger: AppLogger;
}

/** The handler of `render-thumbnail` jobs: renders the model's current LOD 0 with its bound materials. */
export function createRenderThumbnailJob(deps: ThumbnailJobDependencies): {
  run: JobHandler<typeof JobName.RenderThumbnail>;
  failed: FailureHandler<typeof JobName.RenderThumbnail>;
} {
  const { models, blobs, logger } = deps;
  return {
    async run(job) {
      const modelId = job.payload.model_id;
      const model = await models.get(modelId);
      // Deleted, or reprocessing since the request: the conversion renders a fresh thumbnail itself.
      if (!model || model.status !== 'completed') return;
      const lods = storedLods(model);
      const lod = lods.find((candidate) => candidate.level === thumbnailLevel(lods[0].triangle_count));
      if (!lod) return;
      const glb = await buffer(await blobs.read(lod.key));
      const parts = await models.parts(modelId);
      const key = await renderAndStoreThumbnail(
        deps,
        modelId,
        glb,
        parts.map((part) => part.group_id),
      );
      const replaced = await models.setThumbnail(modelId, key);
      if (!replaced) await blobs.delete(key);
      else if (replaced.previous && replaced.previous !== key) await blobs.delete(replaced.previous);
      logger.info({ modelId }, 'thumbnail regenerated');
    },
    async failed(job, error) {
      logger.error({ modelId: job.payload.model_id, err: error.message }, 'thumbnail regeneration failed');
    },
  };
}
