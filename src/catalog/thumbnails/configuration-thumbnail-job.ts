// The render of a configuration's own thumbnail: the model drawn as the thumbnail of the model is, with the
// configuration's bindings over the present ones.
import type { AppLogger } from '../../logger.ts';
import type { FailureHandler, JobHandler, JobName } from '../../jobs/job-types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import type { MaterialRepository } from '../../materials/repository.ts';
import { PinoStepLogger } from '../../pipeline/step-logger.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { modelPrefix } from '../lod-keys.ts';
import type { ModelRepository } from '../repository.ts';
import { storedLods } from '../schemas.ts';
import { queueConfigurationThumbnail } from './configuration-thumbnail-queue.ts';
import { RENDER_BUSY_RETRY_MS, thumbnailSource } from './render-thumbnail-job.ts';
import { coloursOf, thumbnailKey, type RenderThumbnail } from './thumbnails.ts';

/**
 * The configurations' side of their thumbnails, handed in by the job runner: the catalog reads no configuration
 * itself, since configurations build on the catalog and not the other way round.
 */
export interface ConfigurationThumbnails {
  /** Whether the model has the configuration. */
  get(modelId: string, configurationId: string): Promise<object | undefined>;
  /**
   * Points a configuration at a new thumbnail; answers the key it replaces (null when none), or undefined when
   * the configuration is gone.
   */
  setThumbnail(configurationId: string, key: string): Promise<string | null | undefined>;
}

/** What the job needs. */
export interface ConfigurationThumbnailJobDependencies {
  models: ModelRepository;
  materials: MaterialRepository;
  configurations: ConfigurationThumbnails;
  blobs: BlobStore;
  queue: JobQueue;
  render: RenderThumbnail;
  logger: AppLogger;
}

/** How long one render may hold its model, as the model's own render does. */
const RENDER_LEASE_MS = 5 * 60_000;

/** The folder of a configuration's thumbnails, inside its model's, so deleting the model removes them too. */
export function configurationFolder(modelId: string, configurationId: string): string {
  return `${modelPrefix(modelId)}configurations/${configurationId}/`;
}

/**
 * The handler of `render-configuration-thumbnail` jobs. It takes its model's render lease, so it never draws
 * beside the model's own render or another configuration's; a job that finds the model held waits a moment.
 */
export function createConfigurationThumbnailJob(deps: ConfigurationThumbnailJobDependencies): {
  run: JobHandler<typeof JobName.RenderConfigurationThumbnail>;
  failed: FailureHandler<typeof JobName.RenderConfigurationThumbnail>;
} {
  const { models, materials, configurations, blobs, logger } = deps;
  return {
    async run(job) {
      const { model_id: modelId, configuration_id: configurationId } = job.payload;
      const model = await models.get(modelId);
      // Deleted or converting: the conversion's end asks for every configuration's render again.
      if (!model || model.status !== 'completed') return;
      const lods = storedLods(model);
      if (lods.length === 0 || !(await configurations.get(modelId, configurationId))) return;
      if (!(await models.claimThumbnailRender(modelId, RENDER_LEASE_MS))) {
        await queueConfigurationThumbnail(deps.queue, job.payload, RENDER_BUSY_RETRY_MS);
        return;
      }
      let key: string;
      try {
        const glb = await thumbnailSource(blobs, model.tileset_key, lods);
        const groupIds = (await models.parts(modelId)).map((part) => part.group_id);
        const read = await materials.lookupConfigured(groupIds, configurationId);
        if (!read) return;
        const png = await deps.render(
          glb,
          coloursOf(read.bound),
          new PinoStepLogger(logger, {
            model_id: modelId,
            configuration_id: configurationId,
            job_id: job.id,
          }),
        );
        key = thumbnailKey(modelId, png, 'png', configurationFolder(modelId, configurationId));
        await blobs.putBytes(key, png);
      } finally {
        await models.releaseThumbnailRender(modelId);
      }
      const replaced = await configurations.setThumbnail(configurationId, key);
      if (replaced === undefined) await blobs.delete(key);
      else if (replaced) await blobs.delete(replaced);
      logger.info(
        { model_id: modelId, configuration_id: configurationId, job_id: job.id },
        'configuration thumbnail rendered',
      );
    },
    async failed(job, error) {
      logger.error(
        { ...job.payload, job_id: job.id, err: error.message },
        'configuration thumbnail render failed',
      );
    },
  };
}
