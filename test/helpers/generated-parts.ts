// A converted model's parts made in code, at any count, for the tests and benchmarks of storing and reading large
// models without running the converter.
import type { ConversionRecord } from '../../src/catalog/conversion/conversion-record.ts';
import { createModelRepository } from '../../src/catalog/repository.ts';
import { createVersionRepository } from '../../src/catalog/versions/repository.ts';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { PROPERTY_LIMITS, type PartProperties } from '../../src/pipeline/part-properties.ts';
import type { PartInfo } from '../../src/pipeline/types.ts';

/** Properties every generated part has (the `Element` set). */
export const COMMON_PROPERTIES = 2;

/** The group id of generated part `index`: sortable, so the first, middle and last are easy to name. */
export function generatedGroupId(index: number): string {
  return `part-${String(index).padStart(6, '0')}`;
}

/** Whether generated part `index` is one of the few carrying the per-part cap of properties. */
export function isFullPart(index: number, count: number): boolean {
  return index === 0 || index === Math.floor(count / 2) || index === count - 1;
}

/** `n` as 32 hex digits, the width of a fingerprint's hashes. */
function hex(n: number): string {
  return n.toString(16).padStart(32, '0');
}

/**
 * Part `index` of `count`: a wall every 4th part, else a slab, with its index as a property; the first, middle and
 * last parts also carry a `Pset_Full` set that fills them to the per-part cap ({@link PROPERTY_LIMITS}). `renamed`
 * gives the part another name (a later version's change).
 */
export function generatedPart(index: number, count: number, renamed = false): PartInfo {
  const wall = index % 4 === 0;
  const properties: PartProperties = { Element: { Class: wall ? 'IfcWall' : 'IfcSlab', Index: index } };
  if (isFullPart(index, count)) {
    const full: Record<string, string | number | boolean> = {};
    for (let n = 0; n < PROPERTY_LIMITS.perPart - COMMON_PROPERTIES; n++) full[`P${n}`] = n % 2 ? `v${n}` : n;
    properties.Pset_Full = full;
  }
  return {
    group_id: generatedGroupId(index),
    name: `${renamed ? 'Renamed' : wall ? 'Wall' : 'Slab'} ${index}`,
    path: 'Project/Site/Building',
    triangle_count: 12,
    vertex_count: 24,
    bounds: { min: [index, 0, 0], max: [index + 1, 1, 1] },
    properties,
    fingerprint: {
      geometry: hex(index),
      transform: hex(index + count),
      properties: hex(index + 2 * count),
      material: hex(wall ? 1 : 2),
    },
  };
}

/** The property rows `count` generated parts store. */
export function generatedPropertyRows(count: number): number {
  const full = Math.min(count, 3);
  return count * COMMON_PROPERTIES + full * (PROPERTY_LIMITS.perPart - COMMON_PROPERTIES);
}

/** A finished conversion of `parts`. */
export function generatedRecord(parts: PartInfo[]): ConversionRecord {
  return {
    lods: [],
    tileset_key: null,
    tilesetCutGlb: null,
    parts,
    triangle_count: parts.length * 12,
    vertex_count: parts.length * 24,
    bounds: { min: [0, 0, 0], max: [parts.length, 1, 1] },
    source_unit: 'm',
    source_up_axis: '+Z',
  };
}

/** Makes a model with its version 1, being converted, as an upload leaves it. */
export async function createConvertingModel(database: DatabaseHandle, id: string): Promise<void> {
  const model = await createModelRepository(database).create({
    id,
    name: id,
    description: '',
    original_filename: 'big.ifc',
    format: 'ifc',
    file_size: 1,
    status: 'processing',
    progress: 0,
    source_key: `models/${id}/source/big.ifc`,
    source_entry: null,
    unit: null,
    up_axis: null,
    lods: '[]',
    tags: '[]',
  });
  await createVersionRepository(database.db).createFirst(model);
}
