/** sRGB byte → linear float, for texels, vertex colours stored as bytes and user-picked colours. */
export const SRGB_TO_LINEAR = new Float32Array(256);
for (let i = 0; i < 256; i++) SRGB_TO_LINEAR[i] = srgbToLinear(i / 255);

/** Resolution of the linear → sRGB table; 4096 steps keep dark gradients free of banding. */
const ENCODE_STEPS = 4096;
const LINEAR_TO_SRGB_BYTE = new Uint8Array(ENCODE_STEPS + 1);
for (let i = 0; i <= ENCODE_STEPS; i++) {
  const v = i / ENCODE_STEPS;
  const s = v <= 0.0031308 ? v * 12.92 : 1.055 * Math.pow(v, 1 / 2.4) - 0.055;
  LINEAR_TO_SRGB_BYTE[i] = Math.round(Math.min(1, Math.max(0, s)) * 255);
}

/** The sRGB transfer function's inverse for one channel in 0–1. */
export function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

/** Encodes a linear channel (clamped to 0–1) as an sRGB byte through a table, cheap enough per pixel. */
export function linearToSrgbByte(v: number): number {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return LINEAR_TO_SRGB_BYTE[(v * ENCODE_STEPS + 0.5) | 0];
}
