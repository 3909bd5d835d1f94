// When a configuration's thumbnail is rendered again: after it is made and after its bindings change (its own
// events), and after its model's thumbnail is drawn again (a conversion, a new or restored version, a change of
// the model's bindings or materials), since a configuration shows the model's bindings wherever it binds nothing.
import type { EventFanOut } from '../../events/event-publisher.ts';
import { JobName, type JobPayloads } from '../../jobs/job-types.ts';
import type { JobQueue } from '../../jobs/queue.ts';

/** Events after which the configurations of the event's model are drawn again. */
const MODEL_REDRAWN = new Set(['model.completed', 'thumbnail.updated']);
/** Events after which the event's configuration is drawn again. */
const CONFIGURATION_CHANGED = new Set(['configuration.created', 'configuration.updated']);

/**
 * Queues the render of one configuration's thumbnail `delayMs` from now; one render waits per configuration, so
 * a burst of changes makes one picture, read when it runs.
 */
export async function queueConfigurationThumbnail(
  queue: JobQueue,
  payload: JobPayloads['render-configuration-thumbnail'],
  delayMs: number,
): Promise<void> {
  await queue.enqueue(JobName.RenderConfigurationThumbnail, payload, {
    subject: payload.model_id,
    dedupeKey: `configuration-thumbnail:${payload.configuration_id}`,
    delayMs,
  });
}

/**
 * The event fan-out that queues configuration thumbnails, after the event's commit. `configurationIdsOf` reads a
 * model's configurations (one indexed read, only on the events that redraw a model); no other event costs a read.
 */
export function createConfigurationThumbnailFanOut(
  queue: JobQueue,
  delayMs: number,
  configurationIdsOf: (modelId: string) => Promise<string[]>,
): EventFanOut {
  return async (_trx, event) => {
    const data = event.data as { model_id?: string; configuration_id?: string };
    const modelId = data.model_id;
    if (!modelId) return;
    const changed = CONFIGURATION_CHANGED.has(event.type) ? data.configuration_id : undefined;
    if (!changed && !MODEL_REDRAWN.has(event.type)) return;
    return async () => {
      const ids = changed ? [changed] : await configurationIdsOf(modelId);
      for (const id of ids) {
        await queueConfigurationThumbnail(queue, { model_id: modelId, configuration_id: id }, delayMs);
      }
    };
  };
}
