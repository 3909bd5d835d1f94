import { createModelRepository } from '../../src/catalog/repository.ts';
import { MODEL_PART_COLUMNS } from '../../src/catalog/part-rows.ts';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { insertRows } from '../../src/db/insert-rows.ts';

/**
 * Stores a completed model whose parts carry the given group ids, straight in the database: for tests of what
 * reads parts (bind announcements, model deletes) without converting a file.
 */
export async function addModelWithParts(
  database: DatabaseHandle,
  modelId: string,
  groupIds: readonly string[],
): Promise<void> {
  await createModelRepository(database).create({
    id: modelId,
    name: modelId,
    description: '',
    original_filename: 'm.glb',
    format: 'glb',
    file_size: 1,
    status: 'completed',
    progress: 100,
    source_key: `models/${modelId}/source/m.glb`,
    source_entry: null,
    unit: null,
    up_axis: null,
    lods: '[]',
    tags: '[]',
  });
  const rows = groupIds.map((groupId, part) => ({
    model_id: modelId,
    part_index: part,
    group_id: groupId,
    name: `part ${part}`,
    name_folded: `part ${part}`,
    path: '',
    triangle_count: 1,
    vertex_count: 3,
    bounds: '{"min":[0,0,0],"max":[1,1,1]}',
    properties: '{}',
  }));
  await insertRows(database.db, 'model_parts', MODEL_PART_COLUMNS, rows);
}
