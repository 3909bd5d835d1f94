import type { ModelRow } from '../db/database.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import type { ModelEventData } from '../events/event-types.ts';
import type { AnnounceBindings } from '../materials/routes.ts';
import type { ModelRepository } from './repository.ts';

/** What a model event says about a model row. */
export function modelEventData(row: ModelRow): ModelEventData {
  return {
    model_id: row.id,
    name: row.name,
    status: row.status as ModelEventData['status'],
    progress: row.progress,
    error: row.error,
  };
}

/** Publishes `bindings.changed` naming the models the groups are parts of, so `?model_id=` streams see it. */
export function createBindingsAnnouncer(models: ModelRepository, events: EventPublisher): AnnounceBindings {
  return async (materialId, groupIds, bound) => {
    // The binding is done; an event that names no models is better than none.
    const modelIds = await models.modelIdsOfGroups(groupIds).catch(() => []);
    await events.publish('bindings.changed', {
      material_id: materialId,
      group_ids: groupIds,
      bound,
      model_ids: modelIds,
    });
  };
}
