import type { MeshoptSimplifier } from 'meshoptimizer';
import { simplifyInChunks } from './simplify-in-chunks.ts';
import type { SimplifyInChunksOptions } from './simplify-in-chunks.ts';
import { faceNormal } from '../gltf/face-normal.ts';

/**
 * Simplifies a triangle list whose surface the source split into separate polygons or faceted pieces (each with
 * its own copy of a shared corner, differing only in its normal): such corners pin meshoptimizer, which never
 * collapses a vertex where more than two copies meet, so the list would not shrink at all. Here the copies are
 * welded by position for the simplifier, and each corner of a kept triangle then takes back the copy whose normal
 * lies closest to its face's: the source's hard edges stay hard and its smooth surfaces smooth, with no normal
 * invented. Only for lists whose vertices carry positions and normals alone: a UV copy cannot be chosen this way.
 * Returns indices into the same vertices, and the simplifier's error.
 */
export function simplifyWelded(
  indices: Uint32Array,
  positions: Float32Array,
  normals: Float32Array,
  simplifier: typeof MeshoptSimplifier,
  options: Omit<SimplifyInChunksOptions, 'simplifier' | 'attributes' | 'attributeWeights'>,
): [Uint32Array, number] {
  const remap = simplifier.generatePositionRemap(positions, 3);
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
  const [simplified, error] = simplifyInChunks(welded, weldedPositions, { ...options, simplifier });
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
