import { Document, Primitive } from '@gltf-transform/core';
import type { Accessor } from '@gltf-transform/core';
import { compactVertices } from './compact-vertices.ts';

/** How many primitives use each index list, as a level starts: see {@link countIndexUsers}. */
export type IndexUsers = Map<Accessor, number>;

/**
 * Counts the primitives that use each index list, once per level. Dedup makes one index list common to every part
 * of the same topology (thousands of boxes), and asking that list for its parents each time one part is given new
 * indices would cost the number of parts each time: quadratic in them.
 */
export function countIndexUsers(document: Document): IndexUsers {
  const users: IndexUsers = new Map();
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const indices = primitive.getIndices();
      if (indices) users.set(indices, (users.get(indices) ?? 0) + 1);
    }
  }
  return users;
}

/**
 * Tells `users` one primitive no longer uses `previous`, and disposes of it once none does and nothing else refers
 * to it (its only parent the document's root): a big primitive's old indices are freed at once, not at the level's
 * prune.
 */
function releaseIndices(previous: Accessor | null, users: IndexUsers): void {
  if (!previous) return;
  const left = (users.get(previous) ?? 1) - 1;
  users.set(previous, left);
  if (left === 0 && previous.listParents().length === 1) previous.dispose();
}

/**
 * Gives the primitive new indices and drops the vertices nothing refers to any more; its old index list goes once
 * no primitive of `users` uses it.
 */
export function replaceIndices(
  primitive: Primitive,
  indices: Uint32Array,
  users: IndexUsers,
  onStep?: () => void,
): void {
  const previous = primitive.getIndices();
  const next = Document.fromGraph(primitive.getGraph())!.createAccessor().setType('SCALAR');
  primitive.setIndices(
    next.setBuffer(previous?.getBuffer() ?? null).setArray(indices as Uint32Array<ArrayBuffer>),
  );
  releaseIndices(previous, users);
  compactVertices(primitive, onStep);
  // Points need no index once compacted: every vertex is drawn once.
  if (primitive.getMode() === Primitive.Mode.POINTS) {
    const sequential = primitive.getIndices();
    primitive.setIndices(null);
    if (sequential && sequential.listParents().length === 1) sequential.dispose();
  }
}
