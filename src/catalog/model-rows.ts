import type { ModelRow } from '../db/database.ts';
import type { ConversionRecord } from './repository.ts';
import type { DetectedFormat } from '../pipeline/detect-format.ts';
import type { ModelFormat } from '../pipeline/types.ts';

/** The format the upload was judged to be when it arrived (judged once; the conversion reads it from here). */
export function uploadFormat(row: Pick<ModelRow, 'format' | 'source_entry'>): DetectedFormat {
  const format = row.format as ModelFormat;
  return row.source_entry === null
    ? { format, archive: false }
    : { format, archive: true, entry: row.source_entry };
}

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
