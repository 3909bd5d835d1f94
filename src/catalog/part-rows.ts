// The rows a converted part is stored as, shared by a model's parts and a version's: the columns both tables have,
// and the property rows the part search reads.
import { dialectOf, rowChunks } from '../db/bound-parameters.ts';
import type { Db } from '../db/database.ts';
import { searchFold } from '../db/search-fold.ts';
import { flattenProperties, type PartProperties } from '../pipeline/part-properties.ts';
import type { ConversionRecord } from './conversion/conversion-record.ts';

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
 * as many rows a statement as the engine's limit on bound values allows (4,671 on SQLite, 9,353 on PostgreSQL).
 */
export async function replacePartPropertyRows(
  trx: Db,
  modelId: string,
  parts: readonly { part_index: number; properties: PartProperties }[],
): Promise<void> {
  await trx.deleteFrom('model_part_properties').where('model_id', '=', modelId).execute();
  const flat = parts.flatMap((part) =>
    flattenProperties(part.properties).map((row) => ({
      model_id: modelId,
      part_index: part.part_index,
      ...row,
      value_folded: searchFold(row.value),
    })),
  );
  for (const chunk of rowChunks(dialectOf(trx), flat)) {
    await trx.insertInto('model_part_properties').values(chunk).execute();
  }
}
