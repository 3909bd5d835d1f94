/** A PNG of a WebGL view, drawn afresh at a chosen scale so the drawing buffer still holds the frame when read. */
import { Vector2 } from 'three';
import type { WebGLRenderer } from 'three';

/** Draws with `draw` at `scale` times the buffer's size, reads the canvas as a PNG data URL and restores the size. */
export function canvasSnapshot(renderer: WebGLRenderer, draw: () => void, scale = 1): string {
  const size = renderer.getSize(new Vector2());
  const ratio = renderer.getPixelRatio();
  renderer.setPixelRatio(ratio * scale);
  renderer.setSize(size.x, size.y, false);
  draw();
  const url = renderer.domElement.toDataURL('image/png');
  renderer.setPixelRatio(ratio);
  renderer.setSize(size.x, size.y, false);
  return url;
}
