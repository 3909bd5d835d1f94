import { scratchFloat32, scratchInt32 } from './scratch-arrays.ts';

/** The supersampled render target: a visibility buffer for opaque geometry plus a colour buffer. */
export interface Framebuffer {
  width: number;
  height: number;
  /** Window depth 0–1 per sample; +Infinity where nothing was drawn. */
  depth: Float32Array;
  /** Index of the primitive seen at each sample, −1 for background. */
  primitive: Int32Array;
  /** Triangle of that primitive seen at each sample. */
  triangle: Int32Array;
  /** Linear premultiplied RGBA per sample; only allocated when something is blended, otherwise shading resolves straight to pixels. */
  color: Float32Array | null;
  /** Linear premultiplied RGBA the empty samples show. */
  background: Float32Array;
}

/**
 * A framebuffer cleared to `background` (linear, premultiplied RGBA); `withColor` adds the per-sample colour buffer.
 * Its buffers are the thread's scratch arrays (see scratch-arrays.ts): good until the next framebuffer is made.
 */
export function createFramebuffer(
  width: number,
  height: number,
  background: ArrayLike<number>,
  withColor: boolean,
): Framebuffer {
  const samples = width * height;
  const color = withColor ? scratchFloat32('framebuffer.color', samples * 4) : null;
  if (color) {
    for (let i = 0; i < color.length; i += 4) {
      color[i] = background[0];
      color[i + 1] = background[1];
      color[i + 2] = background[2];
      color[i + 3] = background[3];
    }
  }
  return {
    width,
    height,
    depth: scratchFloat32('framebuffer.depth', samples).fill(Infinity),
    primitive: scratchInt32('framebuffer.primitive', samples).fill(-1),
    triangle: scratchInt32('framebuffer.triangle', samples).fill(0),
    color,
    background: Float32Array.from(background),
  };
}
