import type { ModelRow } from '../db/database.ts';
import type { EventPublisher } from '../events/event-publisher.ts';
import type { ModelEventData } from '../events/event-types.ts';
import type { AnnounceBindings, AnnounceMaterialEdit } from '../events/announcers.ts';
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

/** Reacts to models whose parts' materials changed (their thumbnails are rendered again). */
export type ModelsRepainted = (modelIds: readonly string[]) => Promise<void>;

/**
 * Publishes `bindings.changed` naming the models the groups are parts of, so `?model_id=` streams see it, and
 * tells `repainted` about those models.
 */
export function createBindingsAnnouncer(
  models: ModelRepository,
  events: EventPublisher,
  repainted: ModelsRepainted = async () => {},
): AnnounceBindings {
  return async (materialId, groupIds, bound) => {
    // The binding is done; an event that names no models is better than none.
    const modelIds = await models.modelIdsOfGroups(groupIds).catch(() => []);
    await events.publish('bindings.changed', {
      material_id: materialId,
      group_ids: groupIds,
      bound,
      model_ids: modelIds,
    });
    await repainted(modelIds);
  };
}

/** The material fields a thumbnail shows; an edit of any other field leaves every picture as it is. */
const PAINTED_FIELDS = new Set(['diffuse_r', 'diffuse_g', 'diffuse_b', 'alpha']);

/** Tells `repainted` about the models with parts bound to a material whose painted fields were edited. */
export function createMaterialEditAnnouncer(
  models: ModelRepository,
  repainted: ModelsRepainted,
): AnnounceMaterialEdit {
  return async (materialId, fields) => {
    if (!fields.some((field) => PAINTED_FIELDS.has(field))) return;
    await repainted(await models.modelIdsOfMaterial(materialId));
  };
}
