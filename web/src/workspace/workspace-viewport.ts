/**
 * The workspace's 3D view: the model view plus what its toolbar asks of it — the part meshes to decorate and move
 * (and word when they change), framing from a preset direction, parallel projection and a PNG of the view.
 */
import type { Camera, Mesh, Vector3 } from 'three';
import { canvasSnapshot } from '../view-tools/canvas-snapshot.ts';
import { OrthographicView } from '../view-tools/orthographic-view.ts';
import { frameBox } from '../viewer/frame-camera.ts';
import { ModelViewport } from '../viewer/model-viewport.ts';

/** A {@link ModelViewport} the workspace's toolbar works on. */
export class WorkspaceViewport extends ModelViewport {
  /** Draws the perspective camera's view with parallel projection while switched on. */
  private readonly orthographic = new OrthographicView();
  private readonly partsListeners = new Set<() => void>();

  /** The meshes of each loaded part, by group id (a tiled model's: those of the tiles loaded now). */
  get parts(): ReadonlyMap<string, Mesh[]> {
    return this.partMeshes;
  }

  /** Calls `listener` whenever the loaded parts' meshes change; returns the unsubscribe. */
  onPartsChanged(listener: () => void): () => void {
    this.partsListeners.add(listener);
    return () => this.partsListeners.delete(listener);
  }

  /** Frames the whole model looking from `direction` (from its centre towards the camera). */
  viewFrom(direction: Vector3): void {
    if (!this.bounds.isEmpty()) frameBox(this.camera, this.controls, this.bounds, direction);
    this.requestRender();
  }

  /** After parts were moved (an exploded view): the selection's boxes follow them, and a frame is drawn. */
  partsMoved(): void {
    this.restyle();
  }

  /** Draws with parallel projection (an orthographic camera matched to the perspective one) or in perspective. */
  setOrthographic(on: boolean): void {
    this.orthographic.enabled = on;
    this.requestRender();
  }

  /**
   * A PNG data URL of the view as it is (paint, styles, sections) at `scale` times the drawing buffer's size: drawn
   * once more right here, so the buffer still holds the frame when it is read.
   */
  snapshot(scale = 1): string {
    const url = canvasSnapshot(this.renderer, () => this.drawFrame(), scale);
    this.requestRender();
    return url;
  }

  // Fields of this class are not there yet while the base constructor runs; the view draws and picks only later.
  protected override get viewCamera(): Camera {
    return this.orthographic?.enabled
      ? this.orthographic.follow(this.camera, this.controls.target)
      : this.camera;
  }

  protected override partsChanged(): void {
    for (const listener of this.partsListeners) listener();
  }
}
