// The rows a converted part is stored as, shared by a model's parts and a version's: the columns both tables have,
// and the property rows the part search reads.
import type { Db } from '../db/database.ts';
import { insertRows, type FullRow, type TableColumns } from '../db/insert-rows.ts';
import { searchFold } from '../db/search-fold.ts';
import { flattenProperties, type PartProperties } from '../pipeline/part-properties.ts';
import type { ConversionRecord } from './conversion/conversion-record.ts';

/** The columns of `model_parts`. */
export const MODEL_PART_COLUMNS: TableColumns<'model_parts'> = {
  model_id: true,
  part_index: true,
  group_id: true,
  name: true,
  name_folded: true,
  path: true,
  triangle_count: true,
  vertex_count: true,
  bounds: true,
  properties: true,
};

/** The columns of `model_part_properties`. */
export const PART_PROPERTY_COLUMNS: TableColumns<'model_part_properties'> = {
  model_id: true,
  part_index: true,
  set_name: true,
  property_name: true,
  value_type: true,
  value: true,
  value_folded: true,
};

/** The columns a converted part is stored with, in `model_parts` and in a version's `model_version_parts` alike. */
export function partColumns(part: ConversionRecord['parts'][number], index: number) {
  return {
    part_index: index,
    group_id: part.group_id,
    name: part.name,
    path: part.path,
    triangle_count: part.triangle_count,
    vertex_count: part.vertex_count,
    bounds: JSON.stringify(part.bounds),
    properties: JSON.stringify(part.properties ?? {}),
  };
}

/**
 * Replaces a model's `model_part_properties` rows with those of `parts` (each part's index and its property sets),
 * in bulk (insert-rows.ts).
 */
export async function replacePartPropertyRows(
  trx: Db,
  modelId: string,
  parts: Iterable<{ part_index: number; properties: PartProperties }>,
): Promise<void> {
  await trx.deleteFrom('model_part_properties').where('model_id', '=', modelId).execute();
  await insertRows(trx, 'model_part_properties', PART_PROPERTY_COLUMNS, propertyRows(modelId, parts));
}

/** The property rows of `parts`, built as the inserts read them. */
function* propertyRows(
  modelId: string,
  parts: Iterable<{ part_index: number; properties: PartProperties }>,
): Generator<FullRow<'model_part_properties'>> {
  for (const part of parts) {
    for (const row of flattenProperties(part.properties)) {
      yield { model_id: modelId, part_index: part.part_index, ...row, value_folded: searchFold(row.value) };
    }
  }
}
