/** Sizes a view's drawing buffer and camera to the element its canvas sits in. */
import type { PerspectiveCamera, WebGLRenderer } from 'three';

/**
 * Gives the renderer's drawing buffer the size of its canvas's container and the camera its aspect; answers false
 * (changing nothing) while the canvas is not in a container. CSS sizes the canvas itself.
 */
export function fitCanvas(renderer: WebGLRenderer, camera: PerspectiveCamera): boolean {
  const parent = renderer.domElement.parentElement;
  if (!parent) return false;
  const width = Math.max(parent.clientWidth, 1);
  const height = Math.max(parent.clientHeight, 1);
  renderer.setSize(width, height, false);
  camera.aspect = width / height;
  camera.updateProjectionMatrix();
  return true;
}
