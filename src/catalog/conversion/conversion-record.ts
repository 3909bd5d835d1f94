// What a finished conversion records, and the one writer of its output columns, which a model and each of its
// versions keep under the same names: a model's own conversion writes them onto the model, a version's onto the
// version, and making a version current copies them across by OUTPUT_COLUMNS.
import type { ModelRow } from '../../db/database.ts';
import type { ConversionResult } from '../../pipeline/types.ts';

/** A stored level of detail: the blob key of its GLB and what it holds. */
export interface StoredLod {
  level: 0 | 1 | 2;
  key: string;
  triangle_count: number;
  size: number;
  /** Geometric error against LOD 0 relative to the model's diagonal; absent on models converted before it was measured. */
  error?: number;
  /** Whether the level is a simplified file of its own (see `LodOutput`); absent on models converted before. */
  reduced?: boolean;
}

/** What a finished conversion records on its model: the pipeline's result with its LODs stored. */
export interface ConversionRecord extends Omit<ConversionResult, 'lods' | 'tileset'> {
  lods: StoredLod[];
  /** Blob key of the stored `tileset.json`, or null for a model without a tileset. */
  tileset_key: string | null;
}

/** The conversion's outputs a model and its versions both keep, in columns of the same names. */
export const OUTPUT_COLUMNS = [
  'lods',
  'tileset_key',
  'triangle_count',
  'vertex_count',
  'part_count',
  'bounds',
  'source_unit',
  'source_up_axis',
] as const;

/** The output columns of a finished conversion, for a model's row or a version's alike. */
export function outputColumns(record: ConversionRecord): Pick<ModelRow, (typeof OUTPUT_COLUMNS)[number]> {
  return {
    lods: JSON.stringify(record.lods),
    tileset_key: record.tileset_key,
    triangle_count: record.triangle_count,
    vertex_count: record.vertex_count,
    part_count: record.parts.length,
    bounds: JSON.stringify(record.bounds),
    source_unit: record.source_unit,
    source_up_axis: record.source_up_axis,
  };
}
