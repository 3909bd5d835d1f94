// The rows behind the version repository: the file columns a version shares with its model (the output columns are
// conversion-record.ts's), its parts as rows and back, and the transaction step that makes a version current.
import type { Db, ModelVersionPartRow } from '../../db/database.ts';
import { insertRows, type FullRow, type TableColumns } from '../../db/insert-rows.ts';
import { lazyMap } from '../../db/lazy-map.ts';
import { searchFold } from '../../db/search-fold.ts';
import { nowIso } from '../../db/timestamps.ts';
import type { PartProperties } from '../../pipeline/part-properties.ts';
import { OUTPUT_COLUMNS, type ConversionRecord } from '../conversion/conversion-record.ts';
import { MODEL_PART_COLUMNS, partColumns, replacePartPropertyRows } from '../part-rows.ts';
import type { VersionPart } from './repository.ts';
import { showVersionThumbnail, type ThumbnailSwitch } from './version-thumbnail.ts';

/** The columns a version and its model row share, copied one way when a version becomes current and the other
  way when a model's own conversion (an upload, a reprocess) completes. */
export const FILE_COLUMNS = [
  'original_filename',
  'format',
  'file_size',
  'source_key',
  'source_entry',
  'unit',
  'up_axis',
] as const;

/** The rows of a version's parts, fingerprints as columns, built as they are read (lazy-map.ts). */
export function partRows(
  modelId: string,
  number: number,
  parts: ConversionRecord['parts'],
): Generator<FullRow<'model_version_parts'>> {
  return lazyMap(parts, (part, index) => ({
    model_id: modelId,
    version: number,
    ...partColumns(part, index),
    ...fingerprintColumns(part),
  }));
}

/** A version's parts in scene order. */
export async function partsOf(db: Db, modelId: string, number: number): Promise<VersionPart[]> {
  const rows = await db
    .selectFrom('model_version_parts')
    .selectAll()
    .where('model_id', '=', modelId)
    .where('version', '=', number)
    .orderBy('part_index')
    .execute();
  return rows.map(toVersionPart);
}

/** Whether the version exists. */
export async function versionExists(db: Db, modelId: string, number: number): Promise<boolean> {
  const row = await db
    .selectFrom('model_versions')
    .select('number')
    .where('model_id', '=', modelId)
    .where('number', '=', number)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Copies a version's outputs, parts and picture onto its model and makes it current; undefined when it is not
 * completed or the model is gone. Says what became of the model's picture (version-thumbnail.ts).
 */
export async function makeCurrentIn(
  trx: Db,
  modelId: string,
  number: number,
): Promise<ThumbnailSwitch | undefined> {
  const version = await trx
    .selectFrom('model_versions')
    .selectAll()
    .where('model_id', '=', modelId)
    .where('number', '=', number)
    .where('status', '=', 'completed')
    .executeTakeFirst();
  if (!version) return undefined;
  // Before current_version moves: the outgoing version may take the picture the model showed.
  const thumbnail = await showVersionThumbnail(trx, modelId, number);
  const updated = await trx
    .updateTable('models')
    .set({
      ...pick(version, FILE_COLUMNS),
      original_filename_folded: searchFold(version.original_filename),
      ...pick(version, OUTPUT_COLUMNS),
      status: 'completed',
      progress: 100,
      error: null,
      current_version: number,
      updated_at: nowIso(),
    })
    .where('id', '=', modelId)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) return undefined;
  const parts = await trx
    .selectFrom('model_version_parts')
    .selectAll()
    .where('model_id', '=', modelId)
    .where('version', '=', number)
    .orderBy('part_index')
    .execute();
  await trx.deleteFrom('model_parts').where('model_id', '=', modelId).execute();
  const modelParts = lazyMap(parts, (part) => ({
    model_id: modelId,
    part_index: part.part_index,
    group_id: part.group_id,
    name: part.name,
    name_folded: searchFold(part.name),
    path: part.path,
    triangle_count: part.triangle_count,
    vertex_count: part.vertex_count,
    bounds: part.bounds,
    properties: part.properties,
  }));
  await insertRows(trx, 'model_parts', MODEL_PART_COLUMNS, modelParts);
  await replacePartPropertyRows(
    trx,
    modelId,
    lazyMap(parts, (part) => ({
      part_index: part.part_index,
      properties: JSON.parse(part.properties) as PartProperties,
    })),
  );
  return thumbnail;
}

/** Replaces a version's part rows with `rows`: a conversion of it, first or again, writes them all anew. */
export async function replaceVersionParts(
  trx: Db,
  modelId: string,
  number: number,
  rows: Iterable<FullRow<'model_version_parts'>>,
): Promise<void> {
  await trx
    .deleteFrom('model_version_parts')
    .where('model_id', '=', modelId)
    .where('version', '=', number)
    .execute();
  await insertRows(trx, 'model_version_parts', VERSION_PART_COLUMNS, rows);
}

/** The columns of `model_version_parts`. */
export const VERSION_PART_COLUMNS: TableColumns<'model_version_parts'> = {
  model_id: true,
  version: true,
  part_index: true,
  group_id: true,
  name: true,
  path: true,
  triangle_count: true,
  vertex_count: true,
  bounds: true,
  properties: true,
  geometry_hash: true,
  transform_hash: true,
  properties_hash: true,
  material_hash: true,
};

/** The four fingerprint columns of a version part. */
type FingerprintColumns = Pick<
  ModelVersionPartRow,
  'geometry_hash' | 'transform_hash' | 'properties_hash' | 'material_hash'
>;

/** The fingerprint columns of a converted part. */
function fingerprintColumns(part: ConversionRecord['parts'][number]): FingerprintColumns {
  const { fingerprint } = part;
  return {
    geometry_hash: fingerprint.geometry,
    transform_hash: fingerprint.transform,
    properties_hash: fingerprint.properties,
    material_hash: fingerprint.material,
  };
}

/** A stored version part with its fingerprint, null when any of its hashes is missing. */
export function toVersionPart(
  row: Pick<ModelVersionPartRow, 'group_id' | 'name' | 'path'> & Partial<FingerprintColumns>,
): VersionPart {
  const { geometry_hash, transform_hash, properties_hash, material_hash } = row;
  const fingerprint =
    geometry_hash && transform_hash && properties_hash && material_hash
      ? {
          geometry: geometry_hash,
          transform: transform_hash,
          properties: properties_hash,
          material: material_hash,
        }
      : null;
  return { group_id: row.group_id, name: row.name, path: row.path, fingerprint };
}

/** The listed columns of a row. */
export function pick<R extends object, K extends keyof R>(row: R, keys: readonly K[]): Pick<R, K> {
  return Object.fromEntries(keys.map((key) => [key, row[key]])) as Pick<R, K>;
}
