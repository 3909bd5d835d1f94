import type { mat4 } from '@gltf-transform/core';

/**
 * The inverse of a column-major affine matrix (a node's or a world matrix: its last row 0 0 0 1); null when it
 * flattens space (a zero scale), which nothing can undo.
 */
export function invertAffine(m: mat4): mat4 | null {
  const [a, b, c, , d, e, f, , g, h, i] = m;
  // Cofactors of the 3×3 part, column-major like the matrix.
  const c00 = e * i - f * h;
  const c01 = c * h - b * i;
  const c02 = b * f - c * e;
  const det = a * c00 + d * c01 + g * c02;
  if (!Number.isFinite(det) || Math.abs(det) < 1e-300) return null;
  const s = 1 / det;
  const r = [
    c00 * s,
    c01 * s,
    c02 * s,
    (f * g - d * i) * s,
    (a * i - c * g) * s,
    (c * d - a * f) * s,
    (d * h - e * g) * s,
    (b * g - a * h) * s,
    (a * e - b * d) * s,
  ];
  const [tx, ty, tz] = [m[12], m[13], m[14]];
  return [
    r[0]!,
    r[1]!,
    r[2]!,
    0,
    r[3]!,
    r[4]!,
    r[5]!,
    0,
    r[6]!,
    r[7]!,
    r[8]!,
    0,
    -(r[0]! * tx + r[3]! * ty + r[6]! * tz),
    -(r[1]! * tx + r[4]! * ty + r[7]! * tz),
    -(r[2]! * tx + r[5]! * ty + r[8]! * tz),
    1,
  ] as mat4;
}
