import { cameraBasis, type FramedCamera } from '../camera.ts';

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
  const {
    right: [rx, ry, rz],
    up: [tx, ty, tz],
    back: [bx, by, bz],
  } = cameraBasis(camera);
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
