import { faceNormal } from '../gltf/face-normal.ts';

/** cos 45°: a corner whose normal strays further than this from its face shades it visibly wrong. */
export const DEVIATING_COSINE = Math.SQRT1_2;

/**
 * Share (0–1) of an indexed triangle list's area whose vertex normals lie more than 45° from their face's normal,
 * each corner standing for a third of its triangle: how much of a surface a level of detail shades wrongly (a cap
 * smeared across its rim, a fold turned inside out). 0 without normals, which a viewer shades flat.
 */
export function deviatingShare(
  positions: Float32Array,
  normals: Float32Array | undefined,
  indices: Uint32Array,
): number {
  if (!normals) return 0;
  let total = 0;
  let deviating = 0;
  const normal = new Float64Array(3);
  for (let t = 0; t + 2 < indices.length; t += 3) {
    const a = indices[t] * 3;
    const b = indices[t + 1] * 3;
    const c = indices[t + 2] * 3;
    faceNormal(positions, a, b, c, normal);
    const nx = normal[0];
    const ny = normal[1];
    const nz = normal[2];
    const twiceArea = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(twiceArea > 0)) continue;
    total += twiceArea;
    for (const corner of [a, b, c]) {
      const x = normals[corner];
      const y = normals[corner + 1];
      const z = normals[corner + 2];
      const length = Math.sqrt(x * x + y * y + z * z);
      if (!(length > 0) || (x * nx + y * ny + z * nz) / (length * twiceArea) < DEVIATING_COSINE)
        deviating += twiceArea / 3;
    }
  }
  return total > 0 ? deviating / total : 0;
}
