import type { Document, Primitive } from '@gltf-transform/core';

/**
 * Makes every normal unit length, as glTF requires: importers copy zero normals from files that
 * store them (STL writers that leave facet normals blank, OBJ `vn 0 0 0`) and libraries leave them zero on
 * degenerate faces. A zero normal takes the area-weighted normal of the faces around it, or +Y
 * when those faces have no area either. Returns how many normals were changed.
 */
export function repairNormals(document: Document): number {
  let repaired = 0;
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) repaired += repairPrimitive(primitive);
  }
  return repaired;
}

function repairPrimitive(primitive: Primitive): number {
  const normal = primitive.getAttribute('NORMAL');
  const position = primitive.getAttribute('POSITION');
  if (!normal || !position || normal.getNormalized() || !(normal.getArray() instanceof Float32Array))
    return 0;
  // Edited in place: the accessor owns this array.
  const normals = normal.getArray() as Float32Array;
  const zero: number[] = [];
  let changed = 0;
  for (let i = 0; i < normals.length; i += 3) {
    const length = Math.hypot(normals[i], normals[i + 1], normals[i + 2]);
    if (length < 1e-12 || !Number.isFinite(length)) zero.push(i / 3);
    else if (Math.abs(length - 1) > 1e-4) {
      normals[i] /= length;
      normals[i + 1] /= length;
      normals[i + 2] /= length;
      changed++;
    }
  }
  if (zero.length > 0) {
    const faceNormals = accumulateFaceNormals(primitive, new Set(zero));
    for (const vertex of zero) {
      const sum = faceNormals.get(vertex) ?? [0, 0, 0];
      const length = Math.hypot(sum[0], sum[1], sum[2]);
      const unit = length > 1e-12 ? sum.map((value) => value / length) : [0, 1, 0];
      normals.set(unit, vertex * 3);
    }
    changed += zero.length;
  }
  return changed;
}

/** Sum of the (area-weighted) normals of the triangles around each of `vertices`. */
function accumulateFaceNormals(primitive: Primitive, vertices: Set<number>): Map<number, number[]> {
  const sums = new Map<number, number[]>();
  const position = primitive.getAttribute('POSITION')!;
  const indices = primitive.getIndices();
  const count = indices ? indices.getCount() : position.getCount();
  if (primitive.getMode() !== 4) return sums;
  const a: number[] = [0, 0, 0];
  const b: number[] = [0, 0, 0];
  const c: number[] = [0, 0, 0];
  for (let i = 0; i + 2 < count; i += 3) {
    const corners = indices
      ? [indices.getScalar(i), indices.getScalar(i + 1), indices.getScalar(i + 2)]
      : [i, i + 1, i + 2];
    if (!corners.some((corner) => vertices.has(corner))) continue;
    position.getElement(corners[0], a);
    position.getElement(corners[1], b);
    position.getElement(corners[2], c);
    const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    const v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    const n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    for (const corner of corners) {
      if (!vertices.has(corner)) continue;
      const sum = sums.get(corner) ?? [0, 0, 0];
      sums.set(corner, [sum[0] + n[0], sum[1] + n[1], sum[2] + n[2]]);
    }
  }
  return sums;
}
