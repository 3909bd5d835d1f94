import earcut from 'earcut';

/**
 * Triangulates one polygon in 3D, concave or with holes: its corners are projected onto the plane of
 * its Newell normal and cut into ears there (earcut). `positions` holds x, y, z of each corner; rings
 * after the first, starting at the corner indices in `holeStarts`, are holes. Returns triangles as
 * triples of corner indices, wound like the outer ring. A simple polygon of n corners gives n − 2
 * triangles; a degenerate one (every corner on a line) gives none.
 */
export function triangulatePolygon(
  positions: ArrayLike<number>,
  holeStarts: readonly number[] = [],
): number[] {
  const corners = Math.floor(positions.length / 3);
  if (corners < 3) return [];
  if (corners === 3 && holeStarts.length === 0) return [0, 1, 2];
  const outerEnd = holeStarts.length > 0 ? holeStarts[0] : corners;
  const [nx, ny, nz] = newellNormal(positions, outerEnd);
  // Drop the axis the normal points along most: the projection onto the other two keeps the polygon's
  // shape up to an affine stretch, which leaves ears ears. The sign keeps the winding counter-clockwise.
  const ax = Math.abs(nx);
  const ay = Math.abs(ny);
  const az = Math.abs(nz);
  let u: number;
  let v: number;
  let flip: boolean;
  if (az >= ax && az >= ay) [u, v, flip] = [0, 1, nz < 0];
  else if (ax >= ay) [u, v, flip] = [1, 2, nx < 0];
  else [u, v, flip] = [2, 0, ny < 0];
  const flat = new Float64Array(corners * 2);
  for (let i = 0; i < corners; i++) {
    flat[i * 2] = positions[i * 3 + u];
    flat[i * 2 + 1] = flip ? -positions[i * 3 + v] : positions[i * 3 + v];
  }
  const triangles = earcut(flat, holeStarts.length > 0 ? holeStarts : null, 2);
  // earcut winds its triangles one way in the plane; give them the outer ring's winding in 3D.
  if (triangles.length >= 3 && !sameWinding(flat, triangles, flat, outerEnd)) {
    for (let t = 0; t < triangles.length; t += 3) {
      const swap = triangles[t + 1];
      triangles[t + 1] = triangles[t + 2];
      triangles[t + 2] = swap;
    }
  }
  return triangles;
}

/** The polygon's normal by Newell's method, robust to concave and slightly non-planar rings. */
function newellNormal(positions: ArrayLike<number>, corners: number): [number, number, number] {
  let x = 0;
  let y = 0;
  let z = 0;
  for (let i = 0; i < corners; i++) {
    const j = (i + 1) % corners;
    const [ax, ay, az] = [positions[i * 3], positions[i * 3 + 1], positions[i * 3 + 2]];
    const [bx, by, bz] = [positions[j * 3], positions[j * 3 + 1], positions[j * 3 + 2]];
    x += (ay - by) * (az + bz);
    y += (az - bz) * (ax + bx);
    z += (ax - bx) * (ay + by);
  }
  return [x, y, z];
}

/** Whether the triangles turn the same way as the outer ring in the projected plane. */
function sameWinding(flat: Float64Array, triangles: number[], ring: Float64Array, corners: number): boolean {
  let ringArea = 0;
  for (let i = 0; i < corners; i++) {
    const j = (i + 1) % corners;
    ringArea += ring[i * 2] * ring[j * 2 + 1] - ring[j * 2] * ring[i * 2 + 1];
  }
  let triangleArea = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [triangles[t] * 2, triangles[t + 1] * 2, triangles[t + 2] * 2];
    triangleArea +=
      (flat[b] - flat[a]) * (flat[c + 1] - flat[a + 1]) - (flat[c] - flat[a]) * (flat[b + 1] - flat[a + 1]);
  }
  return ringArea * triangleArea >= 0;
}
