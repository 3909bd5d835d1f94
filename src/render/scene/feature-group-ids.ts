import type { Primitive } from '@gltf-transform/core';
import type { Features, PropertyTable, PropertyTableProperty } from '@gltf-transform/extensions';

/** A primitive's parts as `EXT_mesh_features` marks them: each vertex's feature id and each feature's `group_id`. */
export interface FeatureParts {
  /** Feature id of each vertex. */
  vertexFeatures: ArrayLike<number>;
  /** `group_id` of each feature id, from the property table its feature ids resolve by. */
  groupIds: string[];
  /** `name` of each feature id, where the table has that column (empty otherwise). */
  names: string[];
}

/**
 * The parts of a primitive whose first feature ids are a vertex attribute resolved by a property table with a
 * `group_id` string column (how the tiles of a tileset carry their parts); null for any other primitive.
 */
export function featureParts(primitive: Primitive): FeatureParts | null {
  const features = primitive.getExtension<Features>('EXT_mesh_features');
  const featureId = features?.listFeatureIDs()[0];
  const attribute = featureId?.getAttribute();
  const column = featureId?.getPropertyTable()?.getProperty('group_id');
  if (attribute === null || attribute === undefined || !column) return null;
  const vertexFeatures = primitive.getAttribute(`_FEATURE_ID_${attribute}`)?.getArray();
  if (!vertexFeatures) return null;
  return { vertexFeatures, ...tableParts(featureId!.getPropertyTable()!) };
}

/** Each feature's `group_id` and `name` in a table of parts (no `group_id` column: none). */
export function tableParts(table: PropertyTable): { groupIds: string[]; names: string[] } {
  const groupIds = table.getProperty('group_id');
  const names = table.getProperty('name');
  return {
    groupIds: groupIds ? readStrings(groupIds, table.getCount()) : [],
    names: names ? readStrings(names, table.getCount()) : [],
  };
}

/** The `count` strings of a property table column (UTF-8 bytes and their offsets). */
function readStrings(column: PropertyTableProperty, count: number): string[] {
  const bytes = column.getValues();
  const offsetBytes = column.getStringOffsets();
  if (!offsetBytes) return [];
  const view = new DataView(offsetBytes.buffer, offsetBytes.byteOffset, offsetBytes.byteLength);
  const width = { UINT8: 1, UINT16: 2, UINT32: 4, UINT64: 8 }[column.getStringOffsetType()] ?? 4;
  const offset = (index: number): number =>
    width === 1
      ? view.getUint8(index)
      : width === 2
        ? view.getUint16(index * 2, true)
        : width === 4
          ? view.getUint32(index * 4, true)
          : Number(view.getBigUint64(index * 8, true));
  const decoder = new TextDecoder();
  const strings: string[] = [];
  // A table whose offsets are short reads no further than they go.
  const available = Math.min(count, offsetBytes.byteLength / width - 1);
  for (let index = 0; index < available; index++)
    strings.push(decoder.decode(bytes.subarray(offset(index), offset(index + 1))));
  return strings;
}
