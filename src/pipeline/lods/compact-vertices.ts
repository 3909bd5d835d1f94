import { Document } from '@gltf-transform/core';
import type { Accessor, Primitive, TypedArray } from '@gltf-transform/core';
import { compactPrimitive } from '@gltf-transform/functions';

const UNUSED = 0xffffffff;

/** Indices renumbered between two calls of `onStep` (about half a second here for 16 M). */
const INDICES_PER_STEP = 1 << 24;

/**
 * Drops the vertices a primitive's indices no longer use and numbers the rest in order of first use, as
 * glTF-Transform's `compactPrimitive` does, one attribute at a time with `onStep` after each: on tens of millions
 * of vertices each takes about a second. Attributes used by this primitive alone are changed in place. Morph
 * targets and unindexed primitives are left to `compactPrimitive`.
 */
export function compactVertices(primitive: Primitive, onStep: () => void = () => {}): void {
  const indices = primitive.getIndices();
  const source = indices?.getArray();
  const position = primitive.getAttribute('POSITION');
  if (!indices || !source || !position || primitive.listTargets().length > 0) {
    compactPrimitive(primitive);
    return;
  }
  const vertexCount = position.getCount();
  const remap = new Uint32Array(vertexCount).fill(UNUSED);
  const oldOf = new Uint32Array(vertexCount);
  let used = 0;
  const compacted = new Uint32Array(source.length);
  for (let i = 0; i < source.length; i++) {
    const vertex = source[i];
    let index = remap[vertex];
    if (index === UNUSED) {
      index = used++;
      remap[vertex] = index;
      oldOf[index] = vertex;
    }
    compacted[i] = index;
    if ((i + 1) % INDICES_PER_STEP === 0) onStep();
  }
  // glTF-Transform's rule for the index type: 16 bits while every index fits below the restart value.
  const indexArray = used <= 65534 ? Uint16Array.from(compacted) : compacted;
  ownAccessor(primitive, indices, (accessor) => primitive.setIndices(accessor)).setArray(indexArray);
  onStep();

  // One accessor may serve two semantics (a unit sphere's positions are its normals): compact it once.
  for (const attribute of new Set(primitive.listAttributes())) {
    const array = attribute.getArray();
    if (!array) continue;
    const size = attribute.getElementSize();
    const Kind = array.constructor as new (length: number) => TypedArray;
    const kept = new Kind(used * size);
    for (let n = 0; n < used; n++) {
      const from = oldOf[n] * size;
      const to = n * size;
      for (let j = 0; j < size; j++) kept[to + j] = array[from + j];
    }
    ownAccessor(primitive, attribute, (accessor) => primitive.swap(attribute, accessor)).setArray(kept);
    onStep();
  }
}

/** The accessor itself when only this primitive uses it, otherwise a copy put in its place with `use`. */
function ownAccessor(primitive: Primitive, accessor: Accessor, use: (copy: Accessor) => void): Accessor {
  const document = Document.fromGraph(accessor.getGraph())!;
  // An accessor's parents are the document's root and the properties using it.
  const users = accessor.listParents().filter((parent) => parent !== document.getRoot());
  if (users.length === 1 && users[0] === primitive) return accessor;
  const copy = document
    .createAccessor(accessor.getName())
    .setType(accessor.getType())
    .setNormalized(accessor.getNormalized())
    .setBuffer(accessor.getBuffer())
    .setExtras({ ...accessor.getExtras() });
  use(copy);
  return copy;
}
