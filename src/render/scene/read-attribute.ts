import type { Accessor } from '@gltf-transform/core';

/**
 * Reads an accessor as plain floats, applying the `normalized` flag the way the GPU would
 * (KHR_mesh_quantization stores positions, normals and uvs as integers).
 */
export function readFloats(accessor: Accessor): Float32Array {
  const array = accessor.getArray();
  if (!array) return new Float32Array(accessor.getCount() * accessor.getElementSize());
  if (array instanceof Float32Array) return array;
  const out = new Float32Array(array.length);
  let scale = 1;
  if (accessor.getNormalized()) {
    if (array instanceof Uint8Array) scale = 1 / 255;
    else if (array instanceof Uint16Array) scale = 1 / 65535;
    else if (array instanceof Int8Array) scale = 1 / 127;
    else if (array instanceof Int16Array) scale = 1 / 32767;
  }
  for (let i = 0; i < array.length; i++) {
    const v = array[i] * scale;
    out[i] = v < -1 && scale !== 1 ? -1 : v;
  }
  return out;
}

/**
 * Turns a primitive's indices (or their absence) into a triangle list for glTF draw mode 4, 5 or 6,
 * dropping triangles that point past the vertex array so corrupt files cannot read out of bounds.
 */
export function triangleList(
  indices: Accessor | null,
  vertexCount: number,
  mode: number,
  flipWinding: boolean,
): Uint32Array {
  const source = indices?.getArray() ?? null;
  if (mode === 4 && source) return indexedTriangles(source, vertexCount, flipWinding);
  const count = source ? source.length : vertexCount;
  const at = (i: number): number => (source ? source[i] : i);
  const triangles = mode === 4 ? Math.floor(count / 3) : Math.max(0, count - 2);
  const out = new Uint32Array(triangles * 3);
  let n = 0;
  for (let t = 0; t < triangles; t++) {
    let a: number, b: number, c: number;
    if (mode === 4) {
      a = at(t * 3);
      b = at(t * 3 + 1);
      c = at(t * 3 + 2);
    } else if (mode === 5) {
      // Strips alternate winding; swapping on odd triangles keeps them all facing the same way.
      a = at(t);
      b = at(t % 2 === 0 ? t + 1 : t + 2);
      c = at(t % 2 === 0 ? t + 2 : t + 1);
    } else {
      a = at(0);
      b = at(t + 1);
      c = at(t + 2);
    }
    if (a >= vertexCount || b >= vertexCount || c >= vertexCount) continue;
    out[n++] = a;
    out[n++] = flipWinding ? c : b;
    out[n++] = flipWinding ? b : c;
  }
  return n === out.length ? out : out.slice(0, n);
}

/** The common case (indexed triangle list) without the per-index indirection of the general path. */
function indexedTriangles(source: ArrayLike<number>, vertexCount: number, flipWinding: boolean): Uint32Array {
  // Already a clean Uint32 triangle list (typical for large meshes): use it without copying.
  if (!flipWinding && source instanceof Uint32Array && source.length % 3 === 0) {
    let max = 0;
    for (let i = 0; i < source.length; i++) if (source[i] > max) max = source[i];
    if (max < vertexCount) return source;
  }
  const out = new Uint32Array(Math.floor(source.length / 3) * 3);
  let n = 0;
  for (let i = 0; i + 2 < source.length; i += 3) {
    const a = source[i];
    const b = source[i + 1];
    const c = source[i + 2];
    if (a >= vertexCount || b >= vertexCount || c >= vertexCount) continue;
    out[n++] = a;
    out[n++] = flipWinding ? c : b;
    out[n++] = flipWinding ? b : c;
  }
  return n === out.length ? out : out.slice(0, n);
}
