import { linearToSrgbByte } from '../gltf/color-space.ts';

/**
 * Averages each `factor × factor` block of linear premultiplied samples (a box filter, which is
 * what makes edges smooth) into one linear premultiplied pixel.
 */
export function downsample(color: Float32Array, width: number, height: number, factor: number): Float32Array {
  const outWidth = Math.floor(width / factor);
  const outHeight = Math.floor(height / factor);
  const out = new Float32Array(outWidth * outHeight * 4);
  const norm = 1 / (factor * factor);
  for (let y = 0; y < outHeight; y++) {
    for (let x = 0; x < outWidth; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = 0; sy < factor; sy++) {
        let o = ((y * factor + sy) * width + x * factor) * 4;
        for (let sx = 0; sx < factor; sx++, o += 4) {
          r += color[o];
          g += color[o + 1];
          b += color[o + 2];
          a += color[o + 3];
        }
      }
      const d = (y * outWidth + x) * 4;
      out[d] = r * norm;
      out[d + 1] = g * norm;
      out[d + 2] = b * norm;
      out[d + 3] = a * norm;
    }
  }
  return out;
}

/** Turns linear premultiplied pixels into straight-alpha sRGB bytes, ready for PNG. */
export function encodeSrgb(pixels: Float32Array): Uint8Array {
  const out = new Uint8Array(pixels.length);
  for (let i = 0; i < pixels.length; i += 4) {
    const a = pixels[i + 3];
    if (!(a > 0)) continue;
    const un = 1 / a;
    out[i] = linearToSrgbByte(pixels[i] * un);
    out[i + 1] = linearToSrgbByte(pixels[i + 1] * un);
    out[i + 2] = linearToSrgbByte(pixels[i + 2] * un);
    out[i + 3] = Math.round((a > 1 ? 1 : a) * 255);
  }
  return out;
}
