import { Primitive, PropertyType } from '@gltf-transform/core';
import type { Accessor, Document, TypedArray } from '@gltf-transform/core';
import {
  createTransform,
  getPrimitiveVertexCount,
  VertexCountMethod,
  weldPrimitive,
} from '@gltf-transform/functions';
import type { Transform } from '@gltf-transform/core';

/** Step name used in logs. */
export const NAME = 'weld-in-place';

/** Marks a vertex not yet met. */
const UNSET = 0xffffffff;

/**
 * glTF-Transform's `weld`, with the same result array for array (bitwise identical vertices merged, vertices in the
 * order the index first meets them, unused ones dropped, 16-bit indices up to 65,534 vertices), written into the
 * primitive's own accessors instead of new ones. `weld` gives every primitive a new accessor per attribute even when
 * nothing merges, and in a model of 100,000 parts those objects and their graph edges were most of the clean-up's
 * time. A primitive sharing an accessor with another, or holding a sparse one, is welded by `weld`'s own code.
 */
export function weldInPlace(): Transform {
  return createTransform(NAME, (document: Document) => {
    if (document.hasExtension('KHR_mesh_primitive_restart'))
      throw new Error(`${NAME}: KHR_mesh_primitive_restart is not supported`);
    for (const mesh of document.getRoot().listMeshes()) {
      for (const primitive of mesh.listPrimitives()) {
        // Points are left as they are, as `weld` leaves them; an empty primitive of any mode still goes.
        if (primitive.getMode() !== Primitive.Mode.POINTS) {
          if (ownsItsAccessors(primitive)) weldOwn(document, primitive);
          else weldPrimitive(primitive);
        }
        if (getPrimitiveVertexCount(primitive, VertexCountMethod.RENDER) === 0)
          disposeWithAccessors(primitive);
      }
      if (mesh.listPrimitives().length === 0) mesh.dispose();
    }
  });
}

/** The primitive's vertex attributes, its morph targets' included. */
function vertexAccessors(primitive: Primitive): Accessor[] {
  return [
    ...primitive.listAttributes(),
    ...primitive.listTargets().flatMap((target) => target.listAttributes()),
  ];
}

/** Whether nothing but this primitive reads its accessors, and none is sparse: they may be rewritten in place. */
function ownsItsAccessors(primitive: Primitive): boolean {
  const indices = primitive.getIndices();
  const accessors = indices ? [indices, ...vertexAccessors(primitive)] : vertexAccessors(primitive);
  // One accessor under two semantics (TEXCOORD_0 and TEXCOORD_1 alike) would be rewritten twice: `weld` copies it.
  if (new Set(accessors).size !== accessors.length) return false;
  for (const accessor of accessors) {
    if (accessor.getSparse()) return false;
    // A graph lists a parent once however many references it holds: the primitive alone is one user.
    let users = 0;
    for (const parent of accessor.listParents()) if (parent.propertyType !== PropertyType.ROOT) users++;
    if (users !== 1) return false;
  }
  return true;
}

/** Welds a primitive that alone reads its accessors, as `weldPrimitive` would, into those accessors. */
function weldOwn(document: Document, primitive: Primitive): void {
  const position = primitive.getAttribute('POSITION');
  if (!position) return;
  const vertexCount = position.getCount();
  const attributes = vertexAccessors(primitive);
  const streams = attributes.map((accessor) => {
    const array = accessor.getArray()!;
    const byteStride = accessor.getElementSize() * accessor.getComponentSize();
    return { bytes: new Uint8Array(array.buffer, array.byteOffset, array.byteLength), byteStride };
  });
  const indices = primitive.getIndices();
  const source = indices?.getArray() ?? null;
  const count = source ? source.length : vertexCount;

  // The first vertex met with each distinct content, by a hash of its bytes; later equal ones map onto it.
  const table = new Uint32Array(tableSize(vertexCount)).fill(UNSET);
  const mask = table.length - 1;
  const writeMap = new Uint32Array(vertexCount).fill(UNSET);
  let welded = 0;
  for (let at = 0; at < count; at++) {
    const vertex = source ? source[at]! : at;
    if (writeMap[vertex] !== UNSET) continue;
    let slot = hashVertex(streams, vertex) & mask;
    for (let probe = 0; table[slot] !== UNSET && !equalVertices(streams, table[slot]!, vertex); probe++)
      slot = (slot + probe + 1) & mask;
    const first = table[slot]!;
    if (first === UNSET) {
      table[slot] = vertex;
      writeMap[vertex] = welded++;
    } else writeMap[vertex] = writeMap[first]!;
  }

  const remapped = welded <= 65534 ? new Uint16Array(count) : new Uint32Array(count);
  for (let at = 0; at < count; at++) remapped[at] = writeMap[source ? source[at]! : at]!;
  for (const accessor of attributes) accessor.setArray(compacted(accessor, source, writeMap, welded));
  if (indices) indices.setArray(remapped);
  else primitive.setIndices(document.createAccessor().setArray(remapped));
}

/** The accessor's elements at their welded places, each written once (as glTF-Transform's `compactAttribute`). */
function compacted(
  accessor: Accessor,
  source: TypedArray | null,
  writeMap: Uint32Array,
  welded: number,
): TypedArray {
  const size = accessor.getElementSize();
  const array = accessor.getArray()!;
  const result = new (array.constructor as new (length: number) => TypedArray)(welded * size);
  const done = new Uint8Array(welded);
  const count = source ? source.length : accessor.getCount();
  for (let at = 0; at < count; at++) {
    const vertex = source ? source[at]! : at;
    const to = writeMap[vertex]!;
    if (done[to]) continue;
    for (let k = 0; k < size; k++) result[to * size + k] = array[vertex * size + k]!;
    done[to] = 1;
  }
  return result;
}

/** Removes a primitive that draws nothing, and its accessors where nothing else reads them. */
function disposeWithAccessors(primitive: Primitive): void {
  const indices = primitive.getIndices();
  const accessors = indices ? [indices, ...vertexAccessors(primitive)] : vertexAccessors(primitive);
  primitive.dispose();
  for (const accessor of accessors) {
    if (accessor.listParents().every((parent) => parent.propertyType === PropertyType.ROOT))
      accessor.dispose();
  }
}

/** A power-of-two table with a quarter of room to spare, as glTF-Transform's weld sizes its own. */
function tableSize(vertices: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, vertices + vertices / 4)));
}

type Streams = { bytes: Uint8Array; byteStride: number }[];

/** FNV-1a over every byte of the vertex, attribute after attribute. */
function hashVertex(streams: Streams, vertex: number): number {
  let hash = 0x811c9dc5;
  for (const { bytes, byteStride } of streams) {
    const start = vertex * byteStride;
    for (let k = 0; k < byteStride; k++) hash = Math.imul(hash ^ bytes[start + k]!, 0x01000193);
  }
  return hash >>> 0;
}

/** Whether two vertices hold the same bytes in every attribute. */
function equalVertices(streams: Streams, a: number, b: number): boolean {
  for (const { bytes, byteStride } of streams) {
    const at = a * byteStride;
    const bt = b * byteStride;
    for (let k = 0; k < byteStride; k++) if (bytes[at + k] !== bytes[bt + k]) return false;
  }
  return true;
}
