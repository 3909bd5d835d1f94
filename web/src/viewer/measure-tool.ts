/** Point-to-point measuring: points snapped to the surface (and to a vertex near the pointer), drawn as markers and a line. */
import {
  BufferGeometry,
  Group,
  Line,
  LineBasicMaterial,
  Mesh,
  MeshBasicMaterial,
  SphereGeometry,
  Vector3,
} from 'three';
import type { Intersection } from 'three';

/** A vertex this close to the pointer, in CSS pixels, wins over the exact surface point. */
export const VERTEX_SNAP_PX = 10;
const MARKER_COLOR = 0x19e6ff;

/** A measured point in world space (metres) and whether it is a vertex of the model. */
export interface MeasurePoint {
  position: Vector3;
  vertex: boolean;
}

/**
 * The point to measure for a ray hit: the vertex of the hit mesh nearest the pointer on screen when one lies within
 * {@link VERTEX_SNAP_PX} and near the hit in depth (so a vertex on the far side never wins), else the hit itself.
 * `toScreen` maps a world point to CSS pixels of the canvas; `worldPerPixel` is the size of a pixel at the hit.
 */
export function snapToSurface(
  hit: Intersection,
  pointer: { x: number; y: number },
  toScreen: (world: Vector3) => { x: number; y: number },
  worldPerPixel: number,
): MeasurePoint {
  const mesh = hit.object as Mesh;
  const positions = mesh.geometry?.getAttribute('position');
  if (!positions) return { position: hit.point.clone(), vertex: false };
  // Slanted faces put a vertex near on screen further away in depth; four times the snap radius allows for that.
  const reach = VERTEX_SNAP_PX * worldPerPixel * 4;
  const vertex = new Vector3();
  let best: Vector3 | null = null;
  let bestPx = VERTEX_SNAP_PX;
  for (let i = 0; i < positions.count; i += 1) {
    mesh.getVertexPosition(i, vertex);
    vertex.applyMatrix4(mesh.matrixWorld);
    if (vertex.distanceTo(hit.point) > reach) continue;
    const screen = toScreen(vertex);
    const px = Math.hypot(screen.x - pointer.x, screen.y - pointer.y);
    if (px <= bestPx) {
      bestPx = px;
      best = vertex.clone();
    }
  }
  return best ? { position: best, vertex: true } : { position: hit.point.clone(), vertex: false };
}

/** The markers and line of the current measurement, drawn on top of the model. */
export class MeasureOverlay {
  readonly group = new Group();
  private readonly markerMaterial = new MeshBasicMaterial({ color: MARKER_COLOR, depthTest: false });
  private readonly lineMaterial = new LineBasicMaterial({ color: MARKER_COLOR, depthTest: false });
  private readonly marker = new SphereGeometry(1, 16, 12);

  constructor() {
    this.group.renderOrder = 1001;
  }

  /** Draws `points` (a distance's two, an angle's three) with markers `size` world units across, joined by a line. */
  show(points: Vector3[], size: number): void {
    this.clear();
    for (const point of points) {
      const dot = new Mesh(this.marker, this.markerMaterial);
      dot.position.copy(point);
      dot.scale.setScalar(size / 2);
      dot.renderOrder = 1001;
      dot.raycast = () => undefined;
      this.group.add(dot);
    }
    if (points.length >= 2) {
      const line = new Line(new BufferGeometry().setFromPoints(points), this.lineMaterial);
      line.renderOrder = 1001;
      line.raycast = () => undefined;
      this.group.add(line);
    }
  }

  /** Removes the markers and line. */
  clear(): void {
    for (const child of this.group.children) if (child instanceof Line) child.geometry.dispose();
    this.group.clear();
  }

  /** Frees the shared geometry and materials. */
  dispose(): void {
    this.clear();
    this.marker.dispose();
    this.markerMaterial.dispose();
    this.lineMaterial.dispose();
  }
}
