import { linearToSrgbByte } from './color-space.ts';
import type { Framebuffer } from './framebuffer.ts';

/**
 * Averages each `factor × factor` block of linear premultiplied samples (a box filter, which is
 * what makes edges smooth) and encodes the result as straight-alpha sRGB bytes.
 */
export function downsample(fb: Framebuffer, factor: number): Uint8Array {
  const width = Math.floor(fb.width / factor);
  const height = Math.floor(fb.height / factor);
  const out = new Uint8Array(width * height * 4);
  const { color } = fb;
  const norm = 1 / (factor * factor);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < factor; sy++) {
        let o = ((y * factor + sy) * fb.width + x * factor) * 4;
        for (let sx = 0; sx < factor; sx++, o += 4) {
          r += color[o];
          g += color[o + 1];
          b += color[o + 2];
          a += color[o + 3];
        }
      }
      const d = (y * width + x) * 4;
      a *= norm;
      if (a <= 0) continue;
      const un = norm / a;
      out[d] = linearToSrgbByte(r * un);
      out[d + 1] = linearToSrgbByte(g * un);
      out[d + 2] = linearToSrgbByte(b * un);
      out[d + 3] = Math.round((a > 1 ? 1 : a) * 255);
    }
  }
  return out;
}
