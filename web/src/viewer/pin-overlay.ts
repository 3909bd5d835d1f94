/**
 * Annotation pins over the view: small numbered buttons laid over the canvas and moved to their points' places on
 * the screen after every frame, so they stay crisp and clickable at any zoom.
 */
import { Vector3 } from 'three';
import type { Camera } from 'three';
import type { ModelViewport } from './model-viewport.ts';

/** One pin: where it is (model metres, which is the scene's frame: the view loads the GLB as it is) and its label. */
export interface Pin {
  id: string;
  /** The part it is pinned to: hiding the part hides the pin. */
  groupId: string;
  position: readonly [number, number, number];
  label: string;
  /** Words for screen readers and the tooltip. */
  title: string;
  resolved: boolean;
}

/** Where a scene point falls on a canvas of `width` × `height` CSS pixels, or null behind the camera or off it. */
export function screenPoint(
  point: Vector3,
  camera: Camera,
  width: number,
  height: number,
): { x: number; y: number } | null {
  const ndc = point.clone().project(camera);
  if (ndc.z < -1 || ndc.z > 1 || Math.abs(ndc.x) > 1 || Math.abs(ndc.y) > 1) return null;
  return { x: ((ndc.x + 1) / 2) * width, y: ((1 - ndc.y) / 2) * height };
}

/** The layer of pins over one view; {@link PinOverlay.dispose} removes it. */
export class PinOverlay {
  /** Absolutely placed over the canvas; add it to the view's container. */
  readonly element = document.createElement('div');
  private pins: { pin: Pin; button: HTMLButtonElement; at: Vector3 }[] = [];
  private readonly stopFollowing: () => void;

  /** `isPartShown` tells whether a part is drawn (a pin on a hidden part is hidden too). */
  constructor(
    private readonly view: ModelViewport,
    private readonly onChoose: (id: string) => void,
    private readonly isPartShown: (groupId: string) => boolean = () => true,
  ) {
    this.element.className = 'pin-layer';
    this.stopFollowing = view.onFrame(() => this.place());
  }

  /** Replaces the pins shown. */
  setPins(pins: Pin[]): void {
    this.element.replaceChildren();
    this.pins = pins.map((pin) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'pin';
      button.textContent = pin.label;
      button.title = pin.title;
      button.setAttribute('aria-label', `Annotation ${pin.label}: ${pin.title}`);
      button.dataset.annotationId = pin.id;
      button.classList.toggle('resolved', pin.resolved);
      button.addEventListener('click', () => this.onChoose(pin.id));
      this.element.append(button);
      return { pin, button, at: new Vector3(...pin.position) };
    });
    // Placed now, not at the next frame, so no pin ever shows unplaced in the corner.
    this.place();
  }

  /** Marks one pin as the chosen one (or none). */
  setActive(id: string | null): void {
    for (const { pin, button } of this.pins) button.classList.toggle('active', pin.id === id);
  }

  /** Stops following the view and removes the layer. */
  dispose(): void {
    this.stopFollowing();
    this.element.remove();
  }

  private place(): void {
    const { camera } = this.view.rig;
    const width = this.view.canvas.clientWidth;
    const height = this.view.canvas.clientHeight;
    const planes = this.view.activeSections();
    for (const { pin, at, button } of this.pins) {
      // A pin on a hidden part, or on a piece a section cuts away, would point at nothing.
      const shown = this.isPartShown(pin.groupId) && planes.every((plane) => plane.distanceToPoint(at) >= 0);
      const spot = shown ? screenPoint(at, camera, width, height) : null;
      button.hidden = spot === null;
      if (spot) button.style.transform = `translate(${spot.x}px, ${spot.y}px)`;
    }
  }
}
