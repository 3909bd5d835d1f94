import type { AppLogger } from '../../logger.ts';
import type { CatalogService } from '../catalog-service.ts';
import type { ModelsRepainted } from '../model-events.ts';

/**
 * Queues the delayed thumbnail render of each model whose parts' materials changed (see
 * {@link CatalogService.queueThumbnailRefresh}). The change itself is done by then, so a queue that cannot take
 * the job is logged rather than failing it: the old picture stays until the next change or a Regenerate.
 */
export function thumbnailRefresher(
  catalog: CatalogService,
  config: { thumbnailRefreshDelayMs: number },
  logger: AppLogger,
): ModelsRepainted {
  return async (modelIds) => {
    if (modelIds.length === 0) return;
    await catalog
      .queueThumbnailRefresh(modelIds, { delayMs: config.thumbnailRefreshDelayMs })
      .catch((error: unknown) =>
        logger.error({ err: error, model_ids: modelIds.slice(0, 20) }, 'thumbnail refresh not queued'),
      );
  };
}
