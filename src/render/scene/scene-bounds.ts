// Where a scene's triangles lie, for framing its thumbnail: the box and centroid of the vertices triangles use.

/**
 * Grows `min`/`max` by the finite vertices that triangles use, and returns their centroid. Stray
 * unused vertices and NaN or infinite ones (whose triangles are skipped later) must not move the frame.
 */
export function growBounds(
  positions: Float32Array,
  used: Uint8Array,
  min: [number, number, number],
  max: [number, number, number],
): [number, number, number] {
  let cx = 0;
  let cy = 0;
  let cz = 0;
  let finite = 0;
  for (let v = 0; v < used.length; v++) {
    const x = positions[v * 3];
    const y = positions[v * 3 + 1];
    const z = positions[v * 3 + 2];
    if (used[v] === 0 || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) continue;
    if (x < min[0]) min[0] = x;
    if (y < min[1]) min[1] = y;
    if (z < min[2]) min[2] = z;
    if (x > max[0]) max[0] = x;
    if (y > max[1]) max[1] = y;
    if (z > max[2]) max[2] = z;
    cx += x;
    cy += y;
    cz += z;
    finite++;
  }
  return finite > 0 ? [cx / finite, cy / finite, cz / finite] : [0, 0, 0];
}
