// The geometry half of a part's fingerprint: a hash of a mesh's triangles that ignores where the mesh is, the order
// of its triangles and vertices, and float noise below a tolerance. See part-fingerprint.ts for the other halves.
import { hash as digest } from 'node:crypto';
import { Primitive } from '@gltf-transform/core';
import type { Accessor, Mesh } from '@gltf-transform/core';
import { emptyBox, unionBox } from '../gltf/measure-geometry.ts';

/**
 * Side of the grid cell positions snap to before hashing, in metres of the scene (0.1 mm). Coordinates that differ by
 * less hash alike unless they straddle a cell boundary, so this is a tolerance for noise (float32 rounding of a
 * placement baked into vertices is about 1 µm at 10 m from the origin), not a guarantee: a change smaller than a cell
 * is usually, and one larger than a cell always, a geometry change.
 */
export const GEOMETRY_TOLERANCE = 1e-4;

/** A mesh's geometry hash and the offset it was taken from (its box's low corner, in the mesh's own frame). */
export interface MeshGeometry {
  /** 32 hex digits. */
  hash: string;
  offset: [number, number, number];
}

const TWO_32 = 4_294_967_296;
const TWO_20 = 1_048_576;

/**
 * Hashes a mesh as drawn at `scale` (its node's world scale, so the tolerance is in metres whatever the node's unit):
 * every position less the mesh's low corner, snapped to the {@link GEOMETRY_TOLERANCE} grid, then each triangle as
 * a 52-bit hash of its corners (rotated to start at the least, which keeps the winding), the triangles sorted and
 * the sorted list hashed. Welding, triangle order and splitting into primitives do not change it; triangles that
 * collapse on the grid are left out. Holds 8 bytes a vertex of the largest primitive and 8 bytes a triangle.
 */
export function hashMeshGeometry(mesh: Mesh, scale: number): MeshGeometry {
  const box = emptyBox();
  let elements = 0;
  for (const primitive of mesh.listPrimitives()) {
    const position = primitive.getAttribute('POSITION');
    if (!position) continue;
    unionBox(box, { min: position.getMin([0, 0, 0]) as Vec3, max: position.getMax([0, 0, 0]) as Vec3 });
    elements += elementCount(primitive, position);
  }
  const offset: Vec3 = box.min[0] <= box.max[0] ? [...box.min] : [0, 0, 0];
  const cell = GEOMETRY_TOLERANCE / (scale > 0 && Number.isFinite(scale) ? scale : 1);
  const hashes = new Float64Array(elements);
  let used = 0;
  for (const primitive of mesh.listPrimitives()) {
    const position = primitive.getAttribute('POSITION');
    if (position) used = hashElements(primitive, position, offset, cell, hashes, used);
  }
  const sorted = hashes.subarray(0, used).sort();
  // One-shot: a hash object a mesh cost more than the digest at 100,000 parts.
  const bytes = new Uint8Array(sorted.buffer, sorted.byteOffset, sorted.byteLength);
  return { hash: digest('sha256', bytes, 'hex').slice(0, 32), offset };
}

type Vec3 = [number, number, number];

function isTriangles(mode: number): boolean {
  return (
    mode === Primitive.Mode.TRIANGLES ||
    mode === Primitive.Mode.TRIANGLE_STRIP ||
    mode === Primitive.Mode.TRIANGLE_FAN
  );
}

/** Triangles of a triangle primitive; vertices (each hashed as a point) of a point or line primitive. */
function elementCount(primitive: Primitive, position: Accessor): number {
  const count = primitive.getIndices()?.getCount() ?? position.getCount();
  switch (primitive.getMode()) {
    case Primitive.Mode.TRIANGLES:
      return Math.floor(count / 3);
    case Primitive.Mode.TRIANGLE_STRIP:
    case Primitive.Mode.TRIANGLE_FAN:
      return Math.max(0, count - 2);
    default:
      return position.getCount();
  }
}

/** Appends the hashes of one primitive's elements to `out` from `at`; returns where the next one goes. */
function hashElements(
  primitive: Primitive,
  position: Accessor,
  offset: Vec3,
  cell: number,
  out: Float64Array,
  at: number,
): number {
  const vertices = position.getCount();
  // Two 32-bit halves of each vertex's 64-bit hash.
  const high = new Uint32Array(vertices);
  const low = new Uint32Array(vertices);
  const array = position.getArray();
  const direct = array instanceof Float32Array ? array : undefined;
  const element: number[] = [0, 0, 0];
  for (let i = 0; i < vertices; i++) {
    if (direct) {
      element[0] = direct[i * 3];
      element[1] = direct[i * 3 + 1];
      element[2] = direct[i * 3 + 2];
    } else position.getElement(i, element);
    const qx = Math.round((element[0] - offset[0]) / cell);
    const qy = Math.round((element[1] - offset[1]) / cell);
    const qz = Math.round((element[2] - offset[2]) / cell);
    // Past ±2³¹ cells (200 km) a coordinate takes two words.
    WORDS[0] = qx;
    WORDS[1] = Math.floor(qx / TWO_32);
    WORDS[2] = qy;
    WORDS[3] = Math.floor(qy / TWO_32);
    WORDS[4] = qz;
    WORDS[5] = Math.floor(qz / TWO_32);
    high[i] = hashWords(0x9747b28c, 6);
    low[i] = hashWords(0x5bd1e995, 6);
  }
  const mode = primitive.getMode();
  if (!isTriangles(mode)) {
    // Points and lines: the set of their vertices, told apart from any triangle by the extra word.
    for (let i = 0; i < vertices; i++) {
      WORDS[0] = high[i];
      WORDS[1] = low[i];
      WORDS[2] = 1;
      out[at++] = toFloat(hashWords(1, 3), low[i]);
    }
    return at;
  }
  const indexArray = primitive.getIndices()?.getArray();
  const fan = mode === Primitive.Mode.TRIANGLE_FAN;
  const strip = mode === Primitive.Mode.TRIANGLE_STRIP;
  const triangles = elementCount(primitive, position);
  for (let t = 0; t < triangles; t++) {
    // Corners as places in the index list; every other triangle of a strip is wound the other way round.
    const odd = strip && t % 2 === 1;
    const a = fan ? 0 : strip ? t + (odd ? 1 : 0) : 3 * t;
    const b = fan ? t + 1 : strip ? t + (odd ? 0 : 1) : 3 * t + 1;
    const c = fan ? t + 2 : strip ? t + 2 : 3 * t + 2;
    const hash = indexArray
      ? triangleHash(high, low, indexArray[a], indexArray[b], indexArray[c], vertices)
      : triangleHash(high, low, a, b, c, vertices);
    if (hash >= 0) out[at++] = hash;
  }
  return at;
}

/**
 * The hash of the triangle of vertices `a`, `b`, `c`, started at its least corner, which names the same triangle the
 * same way whichever corner the file started at and keeps its winding; -1 for one that collapses on the grid (or
 * names a vertex the primitive does not have).
 */
function triangleHash(
  high: Uint32Array,
  low: Uint32Array,
  a: number,
  b: number,
  c: number,
  vertices: number,
): number {
  if (a >= vertices || b >= vertices || c >= vertices) return -1;
  if (same(high, low, a, b) || same(high, low, b, c) || same(high, low, a, c)) return -1;
  let first = a;
  let second = b;
  let third = c;
  if (less(high, low, b, a) && less(high, low, b, c)) {
    first = b;
    second = c;
    third = a;
  } else if (less(high, low, c, a) && less(high, low, c, b)) {
    first = c;
    second = a;
    third = b;
  }
  WORDS[0] = high[first];
  WORDS[1] = low[first];
  WORDS[2] = high[second];
  WORDS[3] = low[second];
  WORDS[4] = high[third];
  WORDS[5] = low[third];
  return toFloat(hashWords(0x1b873593, 6), hashWords(0xcc9e2d51, 6));
}

function same(high: Uint32Array, low: Uint32Array, a: number, b: number): boolean {
  return high[a] === high[b] && low[a] === low[b];
}

function less(high: Uint32Array, low: Uint32Array, a: number, b: number): boolean {
  return high[a] < high[b] || (high[a] === high[b] && low[a] < low[b]);
}

/** 52 bits of two 32-bit hashes as an exact double, so a Float64Array sorts them numerically. */
function toFloat(high: number, low: number): number {
  return (high % TWO_20) * TWO_32 + low;
}

/** The words {@link hashWords} reads, reused so that hashing a vertex or a triangle allocates nothing. */
const WORDS = new Int32Array(6);

/** MurmurHash3 (x86, 32-bit) of the first `length` of {@link WORDS}, unsigned. */
function hashWords(seed: number, length: number): number {
  let h = seed | 0;
  for (let i = 0; i < length; i++) {
    let k = Math.imul(WORDS[i], 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  h ^= length * 4;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
