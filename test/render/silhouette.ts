// Silhouette comparison shared by the thumbnail tests and the benchmark.
import sharp from 'sharp';

/** Decodes a PNG to RGBA bytes and its size. */
export async function decodeRgba(
  png: Uint8Array,
): Promise<{ data: Uint8Array; width: number; height: number }> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    width: info.width,
    height: info.height,
  };
}

/** Pixels at least half covered (alpha ≥ 128) on a transparent background. */
export function silhouette(rgba: Uint8Array): Uint8Array {
  const mask = new Uint8Array(rgba.length / 4);
  for (let i = 0; i < mask.length; i++) mask[i] = rgba[i * 4 + 3] >= 128 ? 1 : 0;
  return mask;
}

/** Intersection over union of two masks of the same size; 1 when both are empty. */
export function iou(a: Uint8Array, b: Uint8Array): number {
  let both = 0;
  let either = 0;
  for (let i = 0; i < a.length; i++) {
    both += a[i] & b[i];
    either += a[i] | b[i];
  }
  return either === 0 ? 1 : both / either;
}

/** `mask` moved right by `dx` pixels on a `width`-wide image, vacated pixels empty. */
export function shiftMask(mask: Uint8Array, width: number, dx: number): Uint8Array {
  const out = new Uint8Array(mask.length);
  const height = mask.length / width;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sx = x - dx;
      if (sx >= 0 && sx < width) out[y * width + x] = mask[y * width + sx];
    }
  }
  return out;
}
