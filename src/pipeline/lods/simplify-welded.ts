import type { MeshoptSimplifier } from 'meshoptimizer';
import { simplifyInChunks } from './simplify-in-chunks.ts';
import type { SimplifyInChunksOptions } from './simplify-in-chunks.ts';
import { faceNormal } from '../../gltf/face-normal.ts';

/** What besides a position the copies of one corner share, and what of it the simplifier weighs. */
export interface SharedAttributes {
  /**
   * Per vertex, `keyStride` floats that copies must have equal to be welded (UVs, colours, skin…): vertices that
   * differ in them stay apart, as the seams the simplifier keeps.
   */
  keys: Float32Array;
  keyStride: number;
  /** Per vertex, `weights.length` floats the simplifier weighs (UVs, colours), as in `simplifyWithAttributes`. */
  attributes: Float32Array;
  weights: number[];
}

/**
 * Simplifies a triangle list whose surface the source split into separate polygons or faceted pieces (each with
 * its own copy of a shared corner, differing only in its normal): such corners pin meshoptimizer, which never
 * collapses a vertex where more than two copies meet, so the list would not shrink at all. Here the copies are
 * welded for the simplifier, and each corner of a kept triangle then takes back the copy whose normal lies
 * closest to its face's: the source's hard edges stay hard and its smooth surfaces smooth, with no normal
 * invented. Copies are welded by position and by everything in `shared` (UVs, colours), so a UV seam stays a
 * seam the simplifier respects while the facets along it are joined. Returns indices into the same vertices, and
 * the simplifier's error.
 */
export function simplifyWelded(
  indices: Uint32Array,
  positions: Float32Array,
  normals: Float32Array,
  simplifier: typeof MeshoptSimplifier,
  options: Omit<SimplifyInChunksOptions, 'simplifier' | 'attributes' | 'attributeWeights'>,
  shared?: SharedAttributes,
): [Uint32Array, number] {
  const positionRemap = simplifier.generatePositionRemap(positions, 3);
  const remap = shared ? splitByKeys(positionRemap, shared.keys, shared.keyStride) : positionRemap;
  // The welded vertices get a buffer of their own: the simplifier locks any vertex whose position other
  // vertices of the buffer share, even unused ones.
  const vertexCount = positions.length / 3;
  const weldedOf = new Int32Array(vertexCount).fill(-1);
  const originalOf: number[] = [];
  const welded = new Uint32Array(indices.length);
  for (let i = 0; i < indices.length; i++) {
    const canonical = remap[indices[i]];
    if (weldedOf[canonical] < 0) weldedOf[canonical] = originalOf.push(canonical) - 1;
    welded[i] = weldedOf[canonical];
  }
  const weldedPositions = new Float32Array(originalOf.length * 3);
  originalOf.forEach((vertex, k) =>
    weldedPositions.set(positions.subarray(vertex * 3, vertex * 3 + 3), k * 3),
  );
  const stride = shared?.weights.length ?? 0;
  const weldedAttributes = new Float32Array(originalOf.length * stride);
  if (shared) {
    originalOf.forEach((vertex, k) =>
      weldedAttributes.set(shared.attributes.subarray(vertex * stride, vertex * stride + stride), k * stride),
    );
  }
  const [simplified, error] = simplifyInChunks(welded, weldedPositions, {
    ...options,
    simplifier,
    attributes: weldedAttributes,
    attributeWeights: shared?.weights ?? [],
  });
  const kept = simplified.map((k) => originalOf[k]);

  // The copies of each welded vertex that the list uses, as runs of one array (counting sort by welded vertex).
  const start = new Uint32Array(vertexCount + 1);
  const used = new Uint8Array(vertexCount);
  for (let i = 0; i < indices.length; i++) used[indices[i]] = 1;
  for (let v = 0; v < vertexCount; v++) if (used[v]) start[remap[v] + 1]++;
  for (let v = 0; v < vertexCount; v++) start[v + 1] += start[v];
  const fill = start.slice(0, vertexCount);
  const copies = new Uint32Array(start[vertexCount]);
  for (let v = 0; v < vertexCount; v++) if (used[v]) copies[fill[remap[v]]++] = v;

  const result = new Uint32Array(kept.length);
  const normal = new Float64Array(3);
  for (let t = 0; t < kept.length; t += 3) {
    const a = kept[t] * 3;
    const b = kept[t + 1] * 3;
    const c = kept[t + 2] * 3;
    faceNormal(positions, a, b, c, normal);
    const nx = normal[0];
    const ny = normal[1];
    const nz = normal[2];
    for (let corner = 0; corner < 3; corner++) {
      const vertex = kept[t + corner];
      let best = vertex;
      let bestCosine = -Infinity;
      for (let k = start[vertex]; k < start[vertex + 1]; k++) {
        const copy = copies[k] * 3;
        const x = normals[copy];
        const y = normals[copy + 1];
        const z = normals[copy + 2];
        const cosine = (x * nx + y * ny + z * nz) / (Math.sqrt(x * x + y * y + z * z) || 1);
        if (cosine > bestCosine) {
          bestCosine = cosine;
          best = copies[k];
        }
      }
      result[t + corner] = best;
    }
  }
  return [result, error];
}

/**
 * Refines a position remap (each vertex → the first vertex at its position) so that vertices at one position
 * but with different `keys` map to different first vertices.
 */
function splitByKeys(positionRemap: Uint32Array, keys: Float32Array, stride: number): Uint32Array {
  if (stride === 0) return positionRemap;
  const remap = new Uint32Array(positionRemap.length);
  const first = new Map<string, number>();
  const bits = new Uint32Array(keys.buffer, keys.byteOffset, keys.length);
  for (let v = 0; v < positionRemap.length; v++) {
    // The floats' bit patterns: exact equality, as the position remap has it.
    const key = `${positionRemap[v]}:${bits.subarray(v * stride, v * stride + stride).join(',')}`;
    let vertex = first.get(key);
    if (vertex === undefined) first.set(key, (vertex = v));
    remap[v] = vertex;
  }
  return remap;
}
