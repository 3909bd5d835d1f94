import { SRGB_TO_LINEAR } from '../../gltf/color-space.ts';
import type { DecodedTexture } from '../scene/decode-texture.ts';

/** glTF sampler wrap modes (WebGL enums). */
export const WRAP_REPEAT = 10497;
/** Clamp texture coordinates to the edge texels. */
export const WRAP_CLAMP = 33071;
/** Repeat, mirroring every other tile. */
export const WRAP_MIRROR = 33648;

function wrap(i: number, size: number, mode: number): number {
  if (mode === WRAP_CLAMP) return i < 0 ? 0 : i >= size ? size - 1 : i;
  if (mode === WRAP_MIRROR) {
    const period = size * 2;
    let m = i % period;
    if (m < 0) m += period;
    return m < size ? m : period - 1 - m;
  }
  let m = i % size;
  if (m < 0) m += size;
  return m;
}

/**
 * Bilinearly samples `texture` at (u, v) and writes linear RGBA to `out[0..3]`. Colour channels are
 * decoded from sRGB before filtering so edges between texels blend like the GPU's sRGB samplers.
 */
export function sampleTexture(
  texture: DecodedTexture,
  wrapS: number,
  wrapT: number,
  u: number,
  v: number,
  out: Float32Array,
): void {
  const { width, height, data } = texture;
  if (!Number.isFinite(u) || !Number.isFinite(v)) {
    out[0] = out[1] = out[2] = out[3] = 1;
    return;
  }
  const x = u * width - 0.5;
  const y = v * height - 0.5;
  const fx0 = Math.floor(x);
  const fy0 = Math.floor(y);
  const fx = x - fx0;
  const fy = y - fy0;
  const x0 = wrap(fx0, width, wrapS);
  const x1 = wrap(fx0 + 1, width, wrapS);
  const y0 = wrap(fy0, height, wrapT);
  const y1 = wrap(fy0 + 1, height, wrapT);
  const i00 = (y0 * width + x0) * 4;
  const i10 = (y0 * width + x1) * 4;
  const i01 = (y1 * width + x0) * 4;
  const i11 = (y1 * width + x1) * 4;
  const w00 = (1 - fx) * (1 - fy);
  const w10 = fx * (1 - fy);
  const w01 = (1 - fx) * fy;
  const w11 = fx * fy;
  for (let c = 0; c < 3; c++) {
    out[c] =
      SRGB_TO_LINEAR[data[i00 + c]] * w00 +
      SRGB_TO_LINEAR[data[i10 + c]] * w10 +
      SRGB_TO_LINEAR[data[i01 + c]] * w01 +
      SRGB_TO_LINEAR[data[i11 + c]] * w11;
  }
  out[3] = (data[i00 + 3] * w00 + data[i10 + 3] * w10 + data[i01 + 3] * w01 + data[i11 + 3] * w11) / 255;
}
