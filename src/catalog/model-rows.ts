import type { ModelRow } from '../db/database.ts';
import type { DetectedFormat } from '../pipeline/detect-format.ts';
import type { ModelFormat } from '../pipeline/types.ts';

/** The format the upload was judged to be when it arrived (judged once; the conversion reads it from here). */
export function uploadFormat(row: Pick<ModelRow, 'format' | 'source_entry'>): DetectedFormat {
  const format = row.format as ModelFormat;
  return row.source_entry === null
    ? { format, archive: false }
    : { format, archive: true, entry: row.source_entry };
}
