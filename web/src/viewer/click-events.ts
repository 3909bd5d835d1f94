/** Clicks on the view told from drags (a press that moves before its release orbits the camera instead), and where they go. */
import type { Camera, Intersection, Object3D, PerspectiveCamera } from 'three';
import type { MeasurePoint } from './measure-tool.ts';
import { groupIdOf } from './part-meshes.ts';
import { snapAt, surfaceAt } from './surface-hit.ts';

/** A pointer that moved further than this between down and up was orbiting, not clicking. */
const CLICK_TOLERANCE_PX = 5;

/** Calls `onClick` for each primary-button press released within a few pixels of where it began. */
export function listenForClicks(element: HTMLElement, onClick: (event: PointerEvent) => void): void {
  let down: { x: number; y: number } | null = null;
  element.addEventListener('pointerdown', (event) => {
    down = event.button === 0 ? { x: event.clientX, y: event.clientY } : null;
  });
  element.addEventListener('pointerup', (event) => {
    const start = down;
    down = null;
    if (start && Math.hypot(event.clientX - start.x, event.clientY - start.y) <= CLICK_TOLERANCE_PX)
      onClick(event);
  });
}

/** Called when the person clicks the view: the part hit (or null for empty space) and whether to add to the selection. */
export type PickHandler = (groupId: string | null, additive: boolean) => void;
/** Called with each point placed while measuring. */
export type MeasureHandler = (point: MeasurePoint) => void;
/** Called with the surface hit by a click while a tool (annotating) takes clicks instead of the selection. */
export type SurfaceClickHandler = (hit: Intersection) => void;

/** What the view's clicks can hit and where they go. */
export interface ViewClickTargets {
  canvas: HTMLCanvasElement;
  /** The camera frames are drawn with, which a click is picked through. */
  camera: () => Camera;
  /** The perspective camera, whose pixel size measured points are snapped by. */
  snapCamera: PerspectiveCamera;
  /** The loaded model, or null before one. */
  root: () => Object3D | null;
  /** Whether a hit surface may be clicked (shown, not ghosted, not cut away). */
  keep: (entry: Intersection) => boolean;
  /** Whether a hit surface is looked past to whatever lies behind it. */
  lookPast: (entry: Intersection) => boolean;
  onPick: PickHandler;
  /** A part double-clicked, to frame. */
  focus: (groupId: string) => void;
}

/**
 * The view's clicks: a click selects the part under it, or places a measure point, or goes to a tool that took
 * the clicks (annotating); a double click frames the part under it.
 */
export class ViewClicks {
  private measureHandler: MeasureHandler | null = null;
  private surfaceClick: SurfaceClickHandler | null = null;

  constructor(private readonly targets: ViewClickTargets) {
    listenForClicks(targets.canvas, (event) => this.click(event));
    targets.canvas.addEventListener('dblclick', (event) => {
      const hit = this.hitAt({ x: event.clientX, y: event.clientY });
      const groupId = hit ? groupIdOf(hit.object) : null;
      if (groupId !== null) targets.focus(groupId);
    });
  }

  /** While a handler is set, clicks place measure points instead of selecting parts. */
  setMeasuring(handler: MeasureHandler | null): void {
    this.measureHandler = handler;
    this.showTaken();
  }

  /** While a handler is set, clicks on a surface go to it instead of selecting parts. */
  setSurfaceClick(handler: SurfaceClickHandler | null): void {
    this.surfaceClick = handler;
    this.showTaken();
  }

  private showTaken(): void {
    this.targets.canvas.classList.toggle('measuring', Boolean(this.measureHandler || this.surfaceClick));
  }

  /** The visible, uncut surface under a point of the window, if any. */
  private hitAt(client: { x: number; y: number }): Intersection | undefined {
    const { canvas, keep, lookPast } = this.targets;
    const root = this.targets.root();
    return root ? surfaceAt(canvas, this.targets.camera(), root, client, keep, lookPast) : undefined;
  }

  private click(event: PointerEvent): void {
    if (!this.targets.root()) return;
    const client = { x: event.clientX, y: event.clientY };
    const hit = this.hitAt(client);
    if (this.surfaceClick) {
      if (hit) this.surfaceClick(hit);
      return;
    }
    if (this.measureHandler) {
      if (hit) this.measureHandler(snapAt(this.targets.canvas, this.targets.snapCamera, hit, client));
      return;
    }
    this.targets.onPick(hit ? groupIdOf(hit.object) : null, event.shiftKey || event.ctrlKey || event.metaKey);
  }
}
