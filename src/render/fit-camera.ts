// Frames what a scene draws, not its bounding sphere: a building seen from above and the side leaves a sphere's
// frame a third empty, since the sphere holds the corners of a box no wall reaches.
import type { Bounds } from '../pipeline/types.ts';
import { DEFAULT_FOV_Y, DEFAULT_VIEW, FRAME_MARGIN, cameraBasis, frameCamera } from './camera.ts';
import type { FramedCamera, ViewAngles } from './camera.ts';

/** Vertices a frame must hold: world-space positions, and which of them a triangle or point uses (1) or not (0). */
export interface FramedVertices {
  positions: Float32Array;
  used: Uint8Array;
}

/**
 * The camera looking from `view` that holds every used, finite vertex in the image with {@link FRAME_MARGIN} of
 * head-room, as close as it can be: the extremes of the binding axis touch the margin on both sides, and the other
 * axis is centred. Near and far hug the vertices' depths. The scene with no extent (one point, or nothing finite)
 * is framed as {@link frameCamera} frames its bounds.
 */
export function fitCamera(
  vertices: readonly FramedVertices[],
  bounds: Bounds,
  aspect: number,
  view: ViewAngles = DEFAULT_VIEW,
  fovY: number = DEFAULT_FOV_Y,
): FramedCamera {
  const sphere = frameCamera(bounds, aspect, view, fovY);
  const { right, up, back } = cameraBasis(sphere);
  const tanY = Math.tan((fovY * Math.PI) / 360) / FRAME_MARGIN;
  const tanX = tanY * aspect;
  // A vertex at (x, y, z) along right, up and back is in the frame of an eye at depth D along back, offset (sx, sy)
  // across, when |x − sx| ≤ tanX·(D − z) and |y − sy| ≤ tanY·(D − z). The least D is the larger of
  // (max(z + x/tanX) + max(z − x/tanX)) / 2 and the same across y, and each offset centres its axis.
  let plusX = -Infinity;
  let minusX = -Infinity;
  let plusY = -Infinity;
  let minusY = -Infinity;
  let nearest = -Infinity;
  let farthest = Infinity;
  for (const { positions, used } of vertices) {
    for (let v = 0; v < used.length; v++) {
      if (used[v] === 0) continue;
      const px = positions[v * 3];
      const py = positions[v * 3 + 1];
      const pz = positions[v * 3 + 2];
      if (!Number.isFinite(px) || !Number.isFinite(py) || !Number.isFinite(pz)) continue;
      const x = (px * right[0] + py * right[1] + pz * right[2]) / tanX;
      const y = (px * up[0] + py * up[1] + pz * up[2]) / tanY;
      const z = px * back[0] + py * back[1] + pz * back[2];
      if (z + x > plusX) plusX = z + x;
      if (z - x > minusX) minusX = z - x;
      if (z + y > plusY) plusY = z + y;
      if (z - y > minusY) minusY = z - y;
      if (z > nearest) nearest = z;
      if (z < farthest) farthest = z;
    }
  }
  const depth = Math.max(plusX + minusX, plusY + minusY) / 2;
  const reach = depth - nearest;
  if (!Number.isFinite(depth) || !(reach > 0)) return sphere;
  const across = (tanX * (plusX - minusX)) / 2;
  const upward = (tanY * (plusY - minusY)) / 2;
  const middle = (nearest + farthest) / 2;
  const target: [number, number, number] = [0, 1, 2].map(
    (i) => right[i] * across + up[i] * upward + back[i] * middle,
  ) as [number, number, number];
  const distance = depth - middle;
  const eye: [number, number, number] = [0, 1, 2].map((i) => target[i] + back[i] * distance) as [
    number,
    number,
    number,
  ];
  // The nearest vertex is `reach` in front of the eye: 1 % of the depth range (or of `reach`, for a flat scene
  // seen square on) either side keeps every vertex off the near and far planes.
  const pad = 0.01 * Math.max(nearest - farthest, reach);
  return {
    eye,
    target,
    up: sphere.up,
    fovY,
    near: Math.max(reach - pad, reach * 0.5),
    far: depth - farthest + pad,
  };
}
