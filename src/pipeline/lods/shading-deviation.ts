import { faceNormal } from '../../gltf/face-normal.ts';

/** cos 45°: a corner whose normal strays further than this from its face shades it visibly wrong. */
export const DEVIATING_COSINE = Math.SQRT1_2;

/** The area of an indexed triangle list and the share of it that shades wrongly. */
export interface SurfaceMeasure {
  area: number;
  /**
   * Share (0–1) of the area whose vertex normals lie more than 45° from their face's normal, each corner standing
   * for a third of its triangle: how much of a surface a level of detail shades wrongly (a cap smeared across its
   * rim, a fold turned inside out). 0 without normals, which a viewer shades flat.
   */
  deviatingShare: number;
}

/** Measures an indexed triangle list's area and wrongly shaded share in one pass over its triangles. */
export function measureSurface(
  positions: Float32Array,
  normals: Float32Array | undefined,
  indices: Uint32Array,
): SurfaceMeasure {
  const normal = new Float64Array(3);
  let twiceAreas = 0;
  let shaded = 0;
  let deviating = 0;
  for (let t = 0; t + 2 < indices.length; t += 3) {
    const a = indices[t] * 3;
    const b = indices[t + 1] * 3;
    const c = indices[t + 2] * 3;
    faceNormal(positions, a, b, c, normal);
    const nx = normal[0];
    const ny = normal[1];
    const nz = normal[2];
    // Math.sqrt rather than Math.hypot: several times faster, and squares of single-precision positions cannot
    // overflow a double.
    const twiceArea = Math.sqrt(nx * nx + ny * ny + nz * nz);
    twiceAreas += twiceArea;
    if (!normals || !(twiceArea > 0)) continue;
    shaded += twiceArea;
    for (const corner of [a, b, c]) {
      const x = normals[corner];
      const y = normals[corner + 1];
      const z = normals[corner + 2];
      const length = Math.sqrt(x * x + y * y + z * z);
      if (!(length > 0) || (x * nx + y * ny + z * nz) / (length * twiceArea) < DEVIATING_COSINE)
        deviating += twiceArea / 3;
    }
  }
  return { area: twiceAreas / 2, deviatingShare: shaded > 0 ? deviating / shaded : 0 };
}
