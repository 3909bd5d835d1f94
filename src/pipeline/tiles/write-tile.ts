import type { Document, PlatformIO } from '@gltf-transform/core';
import { MeshoptEncoder } from 'meshoptimizer';
import { compressLod } from '../lods/compress-lod.ts';
import type { TileBox } from './tile-geometry.ts';
import type { StepContext } from '../types.ts';

/** Bits of the grid inner tiles' positions are quantized to, as the levels of detail are. */
const POSITION_BITS = 14;

/**
 * Writes a tile's document as GLB bytes with `EXT_meshopt_compression`, as the levels of detail are: a leaf
 * losslessly (the full-resolution geometry, every float kept), an inner tile quantized, which moves its vertices
 * by up to {@link quantizationError}. The document is consumed.
 */
export async function tileGlb(
  io: PlatformIO,
  document: Document,
  leaf: boolean,
  context: StepContext,
): Promise<Uint8Array> {
  const compressed = await compressLod(
    document,
    { encoder: MeshoptEncoder, quantize: !leaf, consumeSource: true },
    context,
  );
  return io.writeBinary(compressed);
}

/**
 * How far quantizing a tile with this box may move a vertex, in metres: glTF-Transform spreads a grid of
 * 2^14 − 2 steps over the box's longest side on every axis; a vertex moves less than one step's diagonal.
 */
export function quantizationError(box: TileBox): number {
  const side = Math.max(...[0, 1, 2].map((axis) => box.max[axis] - box.min[axis]));
  return side > 0 ? (Math.sqrt(3) * side) / (2 ** POSITION_BITS - 2) : 0;
}
