import type { ModelPartRow, ModelRow } from '../db/database.ts';
import type { DeclaredUp, LengthUnit } from '../pipeline/types.ts';
import { toIso } from '../db/timestamps.ts';
import type { Material } from '../materials/schemas.ts';
import type { DetectedFormat } from '../pipeline/detect-format.ts';
import type { ModelFormat } from '../pipeline/types.ts';
import type { StoredLod } from './repository.ts';
import type { Model, ModelStatus, Part } from './schemas.ts';
import type { UrlFor } from '../http/request-file-urls.ts';

/** The stored LODs of a model row. */
export function storedLods(row: ModelRow): StoredLod[] {
  return JSON.parse(row.lods) as StoredLod[];
}

/** The format the upload was judged to be when it arrived (judged once; the conversion reads it from here). */
export function uploadFormat(row: ModelRow): DetectedFormat {
  const format = row.format as ModelFormat;
  return row.source_entry === null
    ? { format, archive: false }
    : { format, archive: true, entry: row.source_entry };
}

/** A model row as the API shows it: URLs resolved, JSON columns parsed; no `model_url` or LODs until completed. */
export function toModel(row: ModelRow, urlFor: UrlFor): Model {
  const completed = row.status === 'completed';
  const lods = completed
    ? storedLods(row).map(({ level, key, triangle_count, size, error, reduced }) => ({
        level,
        url: urlFor(key),
        triangle_count,
        size,
        error: error ?? null,
        reduced: reduced ?? null,
      }))
    : [];
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    original_filename: row.original_filename,
    format: row.format,
    file_size: Number(row.file_size),
    status: row.status as ModelStatus,
    progress: row.progress,
    error: row.error,
    model_url: lods.find((lod) => lod.level === 0)?.url ?? null,
    thumbnail_url: row.thumbnail_key ? urlFor(row.thumbnail_key) : null,
    original_url: urlFor(row.source_key),
    lods,
    triangle_count: row.triangle_count === null ? null : Number(row.triangle_count),
    vertex_count: row.vertex_count === null ? null : Number(row.vertex_count),
    part_count: row.part_count,
    bounds: row.bounds ? JSON.parse(row.bounds) : null,
    tags: JSON.parse(row.tags) as string[],
    source_unit: row.source_unit,
    source_up_axis: row.source_up_axis,
    unit: (row.unit as LengthUnit | null) ?? null,
    up: (row.up_axis as DeclaredUp | null) ?? null,
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  };
}

/** A part row with the material bound to its group, if any. */
export function toPart(row: ModelPartRow, material: Material | undefined): Part {
  return {
    group_id: row.group_id,
    name: row.name,
    path: row.path,
    triangle_count: Number(row.triangle_count),
    vertex_count: Number(row.vertex_count),
    bounds: JSON.parse(row.bounds),
    material: material ?? null,
  };
}
