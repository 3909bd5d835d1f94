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
  for (let t = 0; t + 2 < indices.length; t += 3) {
    const a = indices[t] * 3;
    const b = indices[t + 1] * 3;
    const c = indices[t + 2] * 3;
    const ux = positions[b] - positions[a];
    const uy = positions[b + 1] - positions[a + 1];
    const uz = positions[b + 2] - positions[a + 2];
    const vx = positions[c] - positions[a];
    const vy = positions[c + 1] - positions[a + 1];
    const vz = positions[c + 2] - positions[a + 2];
    const nx = uy * vz - uz * vy;
    const ny = uz * vx - ux * vz;
    const nz = ux * vy - uy * vx;
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
