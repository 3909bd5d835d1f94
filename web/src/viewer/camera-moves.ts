/** Reading and setting the camera as saved views store it, and flying it to a point of the model. */
import { Vector3 } from 'three';
import type { SavedCamera, Triple } from '../api/review-api.ts';
import type { CameraRig, ModelViewport } from './model-viewport.ts';

/** How long a flight to a pin takes. */
const FLIGHT_MS = 450;
/** Share of the current view direction kept when turning to face a pin; the rest is the surface's normal. */
const KEEP_DIRECTION = 0.35;

const triple = (vector: Vector3): Triple => [vector.x, vector.y, vector.z];

/** The camera as a saved view stores it. */
export function captureCamera({ camera, controls }: CameraRig): SavedCamera {
  return {
    position: triple(camera.position),
    target: triple(controls.target),
    up: triple(camera.up),
    fov: camera.fov,
  };
}

/** Puts the camera where a saved view had it. */
export function applyCamera(view: ModelViewport, saved: SavedCamera): void {
  const { camera, controls } = view.rig;
  camera.position.set(...saved.position);
  camera.up.set(...saved.up);
  controls.target.set(...saved.target);
  camera.fov = saved.fov;
  // The near and far planes follow the distance, as framing sets them, so a close view is not clipped.
  const distance = Math.max(camera.position.distanceTo(controls.target), 1e-6);
  camera.near = Math.min(camera.near, distance / 100);
  camera.far = Math.max(camera.far, distance * 100);
  camera.updateProjectionMatrix();
  controls.update();
  view.requestRender();
}

/**
 * Flies the camera to look at `point` from outside the surface (along `normal`, turned a little towards where it
 * looked from), keeping its distance but no further than `maxDistance`.
 */
export function flyTo(view: ModelViewport, point: Triple, normal: Triple, maxDistance: number): void {
  const { camera, controls } = view.rig;
  const fromTarget = new Vector3(...point);
  const startPosition = camera.position.clone();
  const startTarget = controls.target.clone();
  const looking = startPosition.clone().sub(startTarget);
  const distance = Math.min(looking.length(), maxDistance);
  const direction = new Vector3(...normal)
    .normalize()
    .multiplyScalar(1 - KEEP_DIRECTION)
    .addScaledVector(looking.normalize(), KEEP_DIRECTION)
    .normalize();
  const endPosition = fromTarget.clone().addScaledVector(direction, distance);
  const started = performance.now();
  const step = (now: number): void => {
    const t = Math.min((now - started) / FLIGHT_MS, 1);
    const eased = t * t * (3 - 2 * t);
    camera.position.lerpVectors(startPosition, endPosition, eased);
    controls.target.lerpVectors(startTarget, fromTarget, eased);
    controls.update();
    view.requestRender();
    if (t < 1) requestAnimationFrame(step);
  };
  requestAnimationFrame(step);
}
