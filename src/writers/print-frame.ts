/**
 * Positions from Vitrine's frame (metres, +Y up) to a printer's (`scale` units per metre, +Z up):
 * (x, y, z) → (x, −z, y), a rotation, so windings and normals stay outward.
 */
export function toPrintFrame(positions: Float32Array, scale: number): Float32Array {
  const out = new Float32Array(positions.length);
  for (let i = 0; i < positions.length; i += 3) {
    out[i] = positions[i] * scale;
    // 0 − z rather than −z: a vertex on the plane is written 0, not −0.
    out[i + 1] = 0 - positions[i + 2] * scale;
    out[i + 2] = positions[i + 1] * scale;
  }
  return out;
}
