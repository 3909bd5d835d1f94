import type { FramedCamera } from './camera.ts';

/** The light rig, resolved to world space for one camera. */
export interface Lighting {
  /** Camera position, for the view vector of the specular term. */
  eye: Float32Array;
  /** Unit direction towards the key light. */
  key: Float32Array;
  /** Key light intensity per linear RGB channel. */
  keyColor: Float32Array;
  /** Unit direction towards the fill light. */
  fill: Float32Array;
  /** Fill light intensity per linear RGB channel. */
  fillColor: Float32Array;
  /** Hemisphere ambient seen by a normal pointing up (+Y). */
  sky: Float32Array;
  /** Hemisphere ambient seen by a normal pointing down. */
  ground: Float32Array;
}

/**
 * Key light from the upper left behind the camera, a weaker fill from the right, and a sky/ground
 * hemisphere. The directional lights follow the camera so every view is lit the same way; the
 * hemisphere stays world-up so tops read lighter than undersides.
 */
export function cameraLighting(camera: FramedCamera): Lighting {
  const [ex, ey, ez] = camera.eye;
  let bx = ex - camera.target[0];
  let by = ey - camera.target[1];
  let bz = ez - camera.target[2];
  let len = Math.hypot(bx, by, bz) || 1;
  bx /= len;
  by /= len;
  bz /= len;
  const [ux, uy, uz] = camera.up;
  let rx = uy * bz - uz * by;
  let ry = uz * bx - ux * bz;
  let rz = ux * by - uy * bx;
  len = Math.hypot(rx, ry, rz) || 1;
  rx /= len;
  ry /= len;
  rz /= len;
  const tx = by * rz - bz * ry;
  const ty = bz * rx - bx * rz;
  const tz = bx * ry - by * rx;
  const toWorld = (x: number, y: number, z: number): Float32Array => {
    const wx = rx * x + tx * y + bx * z;
    const wy = ry * x + ty * y + by * z;
    const wz = rz * x + tz * y + bz * z;
    const l = Math.hypot(wx, wy, wz) || 1;
    return new Float32Array([wx / l, wy / l, wz / l]);
  };
  return {
    eye: new Float32Array(camera.eye),
    key: toWorld(-0.45, 0.75, 0.5),
    keyColor: new Float32Array([0.64, 0.62, 0.59]),
    fill: toWorld(0.7, -0.05, 0.35),
    fillColor: new Float32Array([0.17, 0.18, 0.2]),
    sky: new Float32Array([0.3, 0.31, 0.34]),
    ground: new Float32Array([0.1, 0.095, 0.09]),
  };
}
