/** Places a camera and its orbit target so a whole object, or a box within it, fills the view. */
import { Box3, Sphere, Vector3 } from 'three';
import type { Object3D, PerspectiveCamera } from 'three';
import type { OrbitControls } from 'three/addons/controls/OrbitControls.js';

/** Direction of the three-quarter view, from the target towards the camera. */
const VIEW_DIRECTION = new Vector3(1, 0.6, 1.2).normalize();

/** Head-room around a framed box: its corners stay this much inside the edges of the view. */
const MARGIN = 1.1;

/**
 * Frames `box` from `direction` (target towards camera; the three-quarter view by default), looking at its centre
 * from as near as keeps all eight corners in the view with {@link MARGIN} of head-room, and scales the near/far
 * planes and zoom limits to its size. The box's bounding sphere put a flat building or a long shaft at a half or a
 * third of the view; the corners fit it to the narrower side.
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
  const back = direction.clone().normalize();
  const distance = Math.max(cornersDistance(box, sphere.center, back, camera), radius * 0.05);
  camera.position.copy(sphere.center).addScaledVector(back, distance);
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  controls.target.copy(sphere.center);
  controls.minDistance = radius * 0.05;
  controls.maxDistance = distance * 20;
  controls.update();
}

/**
 * The least distance from `center` along `back` at which every corner of `box` is in the camera's view, with
 * {@link MARGIN}: a corner at (x, y, z) across, up and along the view is in it when |x| ≤ tan·(d − z) on each axis.
 */
function cornersDistance(box: Box3, center: Vector3, back: Vector3, camera: PerspectiveCamera): number {
  const tanY = Math.tan((camera.fov * Math.PI) / 360) / MARGIN;
  const tanX = tanY * camera.aspect;
  // The axes three.js's lookAt gives the camera; straight along its up, the sphere's distance stands in.
  const right = new Vector3().crossVectors(camera.up, back);
  if (right.lengthSq() < 1e-12)
    return box.getBoundingSphere(new Sphere()).radius / Math.sin(Math.atan(Math.min(tanX, tanY)));
  right.normalize();
  const up = new Vector3().crossVectors(back, right);
  const corner = new Vector3();
  let distance = 0;
  for (let i = 0; i < 8; i++) {
    corner
      .set(i & 1 ? box.max.x : box.min.x, i & 2 ? box.max.y : box.min.y, i & 4 ? box.max.z : box.min.z)
      .sub(center);
    const z = corner.dot(back);
    distance = Math.max(
      distance,
      z + Math.abs(corner.dot(right)) / tanX,
      z + Math.abs(corner.dot(up)) / tanY,
    );
  }
  return distance;
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
