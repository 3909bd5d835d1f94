// Where a scene's triangles lie, for framing its thumbnail: the box and centroid of the vertices triangles use, and
// the sphere around the box's centre that holds them.
import type { Bounds } from '../../pipeline/types.ts';
import type { DrawPrimitive } from '../draw-primitive.ts';

/**
 * Radius of the sphere around the centre of `bounds` that holds every finite vertex a triangle
 * uses: tighter than the box's corners for round models, so they fill more of the thumbnail.
 */
export function sphereRadius(
  primitives: readonly DrawPrimitive[],
  usedVertices: readonly Uint8Array[],
  bounds: Bounds,
): number {
  const cx = (bounds.min[0] + bounds.max[0]) / 2;
  const cy = (bounds.min[1] + bounds.max[1]) / 2;
  const cz = (bounds.min[2] + bounds.max[2]) / 2;
  let max = 0;
  for (let p = 0; p < primitives.length; p++) {
    const positions = primitives[p].positions;
    const used = usedVertices[p];
    for (let u = 0; u < used.length; u++) {
      if (used[u] === 0) continue;
      const v = u * 3;
      const dx = positions[v] - cx;
      const dy = positions[v + 1] - cy;
      const dz = positions[v + 2] - cz;
      const d = dx * dx + dy * dy + dz * dz;
      // NaN distances fail the comparison, so non-finite vertices are ignored.
      if (d > max && d < Infinity) max = d;
    }
  }
  return Math.sqrt(max);
}

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
