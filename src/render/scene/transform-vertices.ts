import type { mat4 } from '@gltf-transform/core';

// Column-major 4×4 matrix helpers that bake node transforms into vertex data for the rasterizer.

/** Determinant of the upper 3×3 of a column-major matrix: negative when it mirrors. */
export function determinant3(m: mat4): number {
  return (
    m[0] * (m[5] * m[10] - m[6] * m[9]) -
    m[4] * (m[1] * m[10] - m[2] * m[9]) +
    m[8] * (m[1] * m[6] - m[2] * m[5])
  );
}

/** True for the identity matrix, so untransformed data can be used as it is. */
export function isIdentity(m: mat4): boolean {
  for (let i = 0; i < 16; i++) if (m[i] !== (i % 5 === 0 ? 1 : 0)) return false;
  return true;
}

/** Local positions through the world matrix `m`. */
export function transformPositions(local: Float32Array, m: mat4): Float32Array {
  const out = new Float32Array(local.length);
  for (let i = 0; i < local.length; i += 3) {
    const x = local[i];
    const y = local[i + 1];
    const z = local[i + 2];
    out[i] = m[0] * x + m[4] * y + m[8] * z + m[12];
    out[i + 1] = m[1] * x + m[5] * y + m[9] * z + m[13];
    out[i + 2] = m[2] * x + m[6] * y + m[10] * z + m[14];
  }
  return out;
}

/** Normals go through the inverse transpose of the world matrix so non-uniform scale keeps them perpendicular. */
export function bakeNormals(local: Float32Array, m: mat4): Float32Array {
  const a = m[0],
    b = m[1],
    c = m[2],
    d = m[4],
    e = m[5],
    f = m[6],
    g = m[8],
    h = m[9],
    i = m[10];
  // Cofactor matrix = inverse transpose × determinant; the scale does not matter once normalized.
  const n00 = e * i - f * h,
    n01 = c * h - b * i,
    n02 = b * f - c * e;
  const n10 = f * g - d * i,
    n11 = a * i - c * g,
    n12 = c * d - a * f;
  const n20 = d * h - e * g,
    n21 = b * g - a * h,
    n22 = a * e - b * d;
  const out = new Float32Array(local.length);
  for (let v = 0; v < local.length; v += 3) {
    const x = local[v],
      y = local[v + 1],
      z = local[v + 2];
    const nx = n00 * x + n01 * y + n02 * z;
    const ny = n10 * x + n11 * y + n12 * z;
    const nz = n20 * x + n21 * y + n22 * z;
    const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
    const s = len > 0 ? 1 / len : 0;
    out[v] = nx * s;
    out[v + 1] = ny * s;
    out[v + 2] = nz * s;
  }
  return out;
}
