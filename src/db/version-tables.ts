// The tables of model versions, apart from database.ts so that file stays one screenful per table family.
import type { Generated } from 'kysely';
import type { Timestamp } from './database.ts';

/**
 * The `model_versions` table: every version of a model, with its own file, conversion state and outputs. The
 * current one's outputs are copied onto its `models` row, which every read of the model uses.
 */
export interface ModelVersionsTable {
  model_id: string;
  number: number;
  original_filename: string;
  format: string;
  file_size: number;
  source_key: string;
  source_entry: string | null;
  unit: string | null;
  up_axis: string | null;
  status: string;
  progress: number;
  error: string | null;
  /** JSON array of `{level, key, triangle_count, size}`, as on `models`. */
  lods: string;
  /** The version's own rendered picture (under its folder), or null. */
  thumbnail_key: string | null;
  tileset_key: string | null;
  triangle_count: number | null;
  vertex_count: number | null;
  part_count: number | null;
  bounds: string | null;
  source_unit: string | null;
  source_up_axis: string | null;
  /** The version that was current when this one was posted, or null for the first. */
  based_on: number | null;
  /** JSON `{added, removed, changed, unchanged}` against `based_on`, once completed; else null. */
  diff_counts: string | null;
  /** Name of the scoped token that posted it; null for the admin token. */
  author: string | null;
  /** The finished resumable upload it was made from (a retry of that request answers this version); else null. */
  upload_id: Generated<string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The `model_version_parts` table: the parts of one version, as `model_parts` holds the current one's. */
export interface ModelVersionPartsTable {
  model_id: string;
  version: number;
  part_index: number;
  group_id: string;
  name: string;
  path: string;
  triangle_count: number;
  vertex_count: number;
  bounds: string;
  properties: Generated<string>;
  /** Hex fingerprints of the part; null on parts converted before fingerprints existed. */
  geometry_hash: string | null;
  transform_hash: string | null;
  properties_hash: string | null;
  material_hash: string | null;
}
