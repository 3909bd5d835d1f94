/**
 * The face normal of the triangle whose corners' x sit at offsets `a`, `b` and `c` of `positions`, unnormalised:
 * (b − a) × (c − a), whose length is twice the triangle's area. Written into `out`, which is returned, so the loops
 * over millions of triangles that call it allocate nothing.
 */
export function faceNormal(
  positions: ArrayLike<number>,
  a: number,
  b: number,
  c: number,
  out: Float64Array,
): Float64Array {
  const ux = positions[b] - positions[a];
  const uy = positions[b + 1] - positions[a + 1];
  const uz = positions[b + 2] - positions[a + 2];
  const vx = positions[c] - positions[a];
  const vy = positions[c + 1] - positions[a + 1];
  const vz = positions[c + 2] - positions[a + 2];
  out[0] = uy * vz - uz * vy;
  out[1] = uz * vx - ux * vz;
  out[2] = ux * vy - uy * vx;
  return out;
}
