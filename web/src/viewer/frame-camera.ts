/** Places a camera and its orbit target so a whole object fills the view. */
import { Box3, Sphere, Vector3 } from 'three';
import type { Object3D, PerspectiveCamera } from 'three';
import type { OrbitControls } from 'three/addons/controls/OrbitControls.js';

/** Direction of the three-quarter view, from the target towards the camera. */
const VIEW_DIRECTION = new Vector3(1, 0.6, 1.2).normalize();

/** Frames `object` from a three-quarter angle and scales near/far planes to its size. */
export function frameCamera(camera: PerspectiveCamera, controls: OrbitControls, object: Object3D): void {
  const box = new Box3().setFromObject(object);
  if (box.isEmpty()) return;
  const sphere = box.getBoundingSphere(new Sphere());
  const radius = Math.max(sphere.radius, 1e-3);
  const halfFov = (camera.fov * Math.PI) / 360;
  // Fit the sphere in the narrower of the two view angles, with a little margin.
  const halfAngle = camera.aspect >= 1 ? halfFov : Math.atan(Math.tan(halfFov) * camera.aspect);
  const distance = (radius / Math.sin(halfAngle)) * 1.1;
  camera.position.copy(sphere.center).addScaledVector(VIEW_DIRECTION, distance);
  camera.near = distance / 100;
  camera.far = distance * 100;
  camera.updateProjectionMatrix();
  controls.target.copy(sphere.center);
  controls.minDistance = radius * 0.05;
  controls.maxDistance = distance * 20;
  controls.update();
}
