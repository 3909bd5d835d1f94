// Reads screenshots as RGB pixels so tests can check what the WebGL view actually drew.
import sharp from 'sharp';

/** Decoded RGB pixels of a screenshot. */
export interface Pixels {
  width: number;
  height: number;
  data: Buffer;
}

/** Decodes a PNG screenshot to 3 channels per pixel. */
export async function decodePng(png: Buffer): Promise<Pixels> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/** The RGB triple at (x, y). */
export function pixelAt(pixels: Pixels, x: number, y: number): [number, number, number] {
  const i = (y * pixels.width + x) * 3;
  return [pixels.data[i], pixels.data[i + 1], pixels.data[i + 2]];
}

/** `#rrggbb` to an RGB triple. */
export function hexToRgb(hex: string): [number, number, number] {
  const value = parseInt(hex.replace('#', ''), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** True when a pixel differs from `reference` by more than `tolerance` in some channel. */
export function differs(
  rgb: [number, number, number],
  reference: [number, number, number],
  tolerance = 24,
): boolean {
  return rgb.some((channel, i) => Math.abs(channel - reference[i]) > tolerance);
}

/** A clearly red pixel: red well above both green and blue. */
export function isRed([r, g, b]: [number, number, number]): boolean {
  return r > 90 && r - g > 60 && r - b > 60;
}

/** A clearly green pixel: green well above both red and blue. */
export function isGreen([r, g, b]: [number, number, number]): boolean {
  return g > 90 && g - r > 60 && g - b > 60;
}

/** How many pixels satisfy `predicate`, which also gets the pixel's position. */
export function countPixels(
  pixels: Pixels,
  predicate: (rgb: [number, number, number], x: number, y: number) => boolean,
): number {
  let count = 0;
  for (let y = 0; y < pixels.height; y += 1) {
    for (let x = 0; x < pixels.width; x += 1) if (predicate(pixelAt(pixels, x, y), x, y)) count += 1;
  }
  return count;
}

/**
 * The pixel nearest the centre whose whole (2r+1)² neighbourhood differs from the background,
 * so a click there lands on the model rather than on an anti-aliased edge.
 */
export function findModelPixel(
  pixels: Pixels,
  background: [number, number, number],
  radius = 3,
): { x: number; y: number } | null {
  const solid = (x: number, y: number): boolean => {
    for (let dy = -radius; dy <= radius; dy += 1) {
      for (let dx = -radius; dx <= radius; dx += 1) {
        const px = x + dx;
        const py = y + dy;
        if (px < 0 || py < 0 || px >= pixels.width || py >= pixels.height) return false;
        if (!differs(pixelAt(pixels, px, py), background)) return false;
      }
    }
    return true;
  };
  const cx = Math.floor(pixels.width / 2);
  const cy = Math.floor(pixels.height / 2);
  const maxRing = Math.max(cx, cy);
  for (let ring = 0; ring <= maxRing; ring += 2) {
    for (let dy = -ring; dy <= ring; dy += 2) {
      for (let dx = -ring; dx <= ring; dx += 2) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== ring) continue;
        if (solid(cx + dx, cy + dy)) return { x: cx + dx, y: cy + dy };
      }
    }
  }
  return null;
}

/** A clearly blue pixel: blue well above both red and green. */
export function isBlue([r, g, b]: [number, number, number]): boolean {
  return b > 90 && b - r > 60 && b - g > 60;
}
