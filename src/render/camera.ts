import type { Bounds } from '../pipeline/types.ts';

/** Direction the camera looks from, in degrees around the scene's centre. */
export interface ViewAngles {
  /** Rotation about +Y, measured from +Z (front) towards +X (right). */
  azimuth: number;
  /** Angle above the horizontal plane; positive looks down on the model. */
  elevation: number;
}

/** The three-quarter view every thumbnail uses unless told otherwise: front-right, from above. */
export const DEFAULT_VIEW: Readonly<ViewAngles> = { azimuth: 45, elevation: 30 };

/** Vertical field of view in degrees: narrow enough that perspective does not distort small parts. */
export const DEFAULT_FOV_Y = 30;

/** A perspective camera, in the same terms as three.js's `PerspectiveCamera` + `lookAt`. */
export interface FramedCamera {
  /** Camera position in world space. */
  eye: [number, number, number];
  /** Point the camera looks at: the centre of the bounding sphere. */
  target: [number, number, number];
  /** World-space up vector handed to look-at. */
  up: [number, number, number];
  /** Vertical field of view in degrees (three.js `fov`). */
  fovY: number;
  /** Near clip distance, just in front of the bounding sphere. */
  near: number;
  /** Far clip distance, just behind the bounding sphere. */
  far: number;
}

/** Head-room around what is framed, so the silhouette never touches the image border. */
export const FRAME_MARGIN = 1.04;

/**
 * Frames the sphere through the corners of `bounds`, so it fits both the vertical and the horizontal field of
 * view, looking at its centre from `view`. A scene's thumbnail fits its vertices instead (fit-camera.ts), which
 * starts from this camera's axes and falls back on it for a scene with no extent.
 */
export function frameCamera(
  bounds: Bounds,
  aspect: number,
  view: ViewAngles = DEFAULT_VIEW,
  fovY: number = DEFAULT_FOV_Y,
): FramedCamera {
  const { min, max } = bounds;
  const target: [number, number, number] = [
    (min[0] + max[0]) / 2,
    (min[1] + max[1]) / 2,
    (min[2] + max[2]) / 2,
  ];
  const corners = Math.hypot(max[0] - min[0], max[1] - min[1], max[2] - min[2]) / 2;
  // A point-sized scene still needs a finite, non-zero distance.
  const r = Number.isFinite(corners) && corners > 0 ? corners : 1;

  const halfFovY = (fovY * Math.PI) / 360;
  const halfFovX = Math.atan(Math.tan(halfFovY) * aspect);
  const distance = (r * FRAME_MARGIN) / Math.sin(Math.min(halfFovY, halfFovX));

  const az = (view.azimuth * Math.PI) / 180;
  const el = (view.elevation * Math.PI) / 180;
  const dir = [Math.cos(el) * Math.sin(az), Math.sin(el), Math.cos(el) * Math.cos(az)];
  const eye: [number, number, number] = [
    target[0] + dir[0] * distance,
    target[1] + dir[1] * distance,
    target[2] + dir[2] * distance,
  ];
  // Straight above or below, +Y is parallel to the view direction; use the azimuth's "back" instead.
  const up: [number, number, number] =
    Math.abs(Math.cos(el)) < 1e-6
      ? [-Math.sin(az) * Math.sign(el), 0, -Math.cos(az) * Math.sign(el)]
      : [0, 1, 0];

  return {
    eye,
    target,
    up,
    fovY,
    near: Math.max(distance - r * 1.01, distance * 1e-3),
    far: distance + r * 1.01,
  };
}

/** The camera's orthonormal axes in world space: right, up, and back (from the target towards the eye). */
export function cameraBasis(camera: FramedCamera): {
  right: [number, number, number];
  up: [number, number, number];
  back: [number, number, number];
} {
  // The camera looks down −back, as three.js's lookAt arranges it.
  let zx = camera.eye[0] - camera.target[0];
  let zy = camera.eye[1] - camera.target[1];
  let zz = camera.eye[2] - camera.target[2];
  let len = Math.hypot(zx, zy, zz) || 1;
  zx /= len;
  zy /= len;
  zz /= len;
  const [ux, uy, uz] = camera.up;
  let xx = uy * zz - uz * zy;
  let xy = uz * zx - ux * zz;
  let xz = ux * zy - uy * zx;
  len = Math.hypot(xx, xy, xz) || 1;
  xx /= len;
  xy /= len;
  xz /= len;
  return {
    right: [xx, xy, xz],
    up: [zy * xz - zz * xy, zz * xx - zx * xz, zx * xy - zy * xx],
    back: [zx, zy, zz],
  };
}

/**
 * Column-major view-projection matrix of `camera` (OpenGL clip space, depth −1…1), built exactly
 * like three.js's `lookAt` + `makePerspective` so both renderers project alike.
 */
export function viewProjection(camera: FramedCamera, aspect: number): Float64Array {
  const [ex, ey, ez] = camera.eye;
  const {
    right: [xx, xy, xz],
    up: [yx, yy, yz],
    back: [zx, zy, zz],
  } = cameraBasis(camera);

  const f = 1 / Math.tan((camera.fovY * Math.PI) / 360);
  const { near, far } = camera;
  const a = f / aspect;
  const c = -(far + near) / (far - near);
  const d = (-2 * far * near) / (far - near);

  // view = [x y z]^T with translation −R·eye; projection applied on the left.
  const tx = -(xx * ex + xy * ey + xz * ez);
  const ty = -(yx * ex + yy * ey + yz * ez);
  const tz = -(zx * ex + zy * ey + zz * ez);
  const m = new Float64Array(16);
  m[0] = a * xx;
  m[4] = a * xy;
  m[8] = a * xz;
  m[12] = a * tx;
  m[1] = f * yx;
  m[5] = f * yy;
  m[9] = f * yz;
  m[13] = f * ty;
  m[2] = c * zx;
  m[6] = c * zy;
  m[10] = c * zz;
  m[14] = c * tz + d;
  m[3] = -zx;
  m[7] = -zy;
  m[11] = -zz;
  m[15] = -tz;
  return m;
}
