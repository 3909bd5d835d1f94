import type { Framebuffer } from './framebuffer.ts';

/**
 * Draws every projected vertex of a point primitive into the visibility buffer as a square splat of
 * `size` samples centred on it, depth-tested like triangles: the sample keeps the primitive's index
 * and the point's index in place of a triangle's, so the shading pass can find its colour.
 */
export function rasterizePoints(
  fb: Framebuffer,
  screen: Float32Array,
  primitiveIndex: number,
  size: number,
): void {
  const { width, height, depth } = fb;
  const primIds = fb.primitive;
  const triIds = fb.triangle;
  const half = size / 2;
  const count = screen.length / 4;
  for (let v = 0; v < count; v++) {
    const x = screen[v * 4];
    const y = screen[v * 4 + 1];
    const z = screen[v * 4 + 2];
    // Behind the camera (NaN) or outside the depth range.
    if (!(z >= 0 && z <= 1)) continue;
    const x0 = Math.max(0, Math.round(x - half));
    const y0 = Math.max(0, Math.round(y - half));
    const x1 = Math.min(width, Math.round(x - half) + size);
    const y1 = Math.min(height, Math.round(y - half) + size);
    for (let sy = y0; sy < y1; sy++) {
      for (let sx = x0, index = sy * width + x0; sx < x1; sx++, index++) {
        if (z < depth[index]) {
          depth[index] = z;
          primIds[index] = primitiveIndex;
          triIds[index] = v;
        }
      }
    }
  }
}
