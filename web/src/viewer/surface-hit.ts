/** Finding the surface under a point of the view, and snapping a measured point to it. */
import { Raycaster, Vector2 } from 'three';
import type { Camera, Intersection, Object3D, PerspectiveCamera, Vector3 } from 'three';
import { snapToSurface } from './measure-tool.ts';
import type { MeasurePoint } from './measure-tool.ts';

/**
 * The nearest surface under a viewport point that `keep` accepts (shown, not ghosted, not cut away). Surfaces that
 * `lookPast` names (compare mode's see-through unchanged parts) are taken only when nothing else lies behind them.
 */
export function surfaceAt(
  canvas: HTMLCanvasElement,
  camera: Camera,
  root: Object3D,
  client: { x: number; y: number },
  keep: (entry: Intersection) => boolean,
  lookPast: (entry: Intersection) => boolean = () => false,
): Intersection | undefined {
  const rect = canvas.getBoundingClientRect();
  const pointer = new Vector2(
    ((client.x - rect.left) / rect.width) * 2 - 1,
    -((client.y - rect.top) / rect.height) * 2 + 1,
  );
  const raycaster = new Raycaster();
  raycaster.setFromCamera(pointer, camera);
  const hits = raycaster.intersectObject(root, true).filter(keep);
  return hits.find((entry) => !lookPast(entry)) ?? hits[0];
}

/** The measured point a click at `client` places on `hit`: a vertex within a few pixels, else the hit itself. */
export function snapAt(
  canvas: HTMLCanvasElement,
  camera: PerspectiveCamera,
  hit: Intersection,
  client: { x: number; y: number },
): MeasurePoint {
  const rect = canvas.getBoundingClientRect();
  const toScreen = (world: Vector3): { x: number; y: number } => {
    const ndc = world.clone().project(camera);
    return { x: ((ndc.x + 1) / 2) * rect.width, y: ((1 - ndc.y) / 2) * rect.height };
  };
  const depth = hit.point.clone().applyMatrix4(camera.matrixWorldInverse).z * -1;
  const worldPerPixel = (2 * depth * Math.tan((camera.fov * Math.PI) / 360)) / rect.height;
  return snapToSurface(hit, { x: client.x - rect.left, y: client.y - rect.top }, toScreen, worldPerPixel);
}
