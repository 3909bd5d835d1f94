/** Places a camera and its orbit target so a whole object, or a box within it, fills the view. */
import { Box3, Sphere, Vector3 } from 'three';
import type { Object3D, PerspectiveCamera } from 'three';
import type { OrbitControls } from 'three/addons/controls/OrbitControls.js';

/** Direction of the three-quarter view, from the target towards the camera. */
const VIEW_DIRECTION = new Vector3(1, 0.6, 1.2).normalize();

/**
 * Frames `box` from `direction` (target towards camera; the three-quarter view by default) and scales the
 * near/far planes and zoom limits to its size.
 */
export function frameBox(
  camera: PerspectiveCamera,
  controls: OrbitControls,
  box: Box3,
  direction: Vector3 = VIEW_DIRECTION,
): void {
  if (box.isEmpty()) return;
  const sphere = box.getBoundingSphere(new Sphere());
  const radius = Math.max(sphere.radius, 1e-3);
  const halfFov = (camera.fov * Math.PI) / 360;
  // Fit the sphere in the narrower of the two view angles, with a little margin.
  const halfAngle = camera.aspect >= 1 ? halfFov : Math.atan(Math.tan(halfFov) * camera.aspect);
  const distance = (radius / Math.sin(halfAngle)) * 1.1;
  camera.position.copy(sphere.center).addScaledVector(direction.clone().normalize(), distance);
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  controls.target.copy(sphere.center);
  controls.minDistance = radius * 0.05;
  controls.maxDistance = distance * 20;
  controls.update();
}

/**
 * Frames `objects` (the parts of an isolated selection) looking from where the camera looks now, so the person
 * keeps their bearings; false, with the camera left alone, when there are none.
 */
export function frameFromHere(
  camera: PerspectiveCamera,
  controls: OrbitControls,
  objects: Object3D[],
): boolean {
  const box = new Box3();
  for (const object of objects) box.expandByObject(object);
  if (box.isEmpty()) return false;
  const direction = camera.position.clone().sub(controls.target);
  frameBox(camera, controls, box, direction.lengthSq() > 0 ? direction : undefined);
  return true;
}

/** Frames `object` from a three-quarter angle. */
export function frameCamera(camera: PerspectiveCamera, controls: OrbitControls, object: Object3D): void {
  frameBox(camera, controls, new Box3().setFromObject(object));
}
