import type { Document, PlatformIO } from '@gltf-transform/core';
import { MeshoptEncoder } from 'meshoptimizer';
import { compressLod, markLosslessMeshopt } from '../lods/compress-lod.ts';
import { alignBufferViews } from './align-buffer-views.ts';
import type { TileBox, TileGeometry } from './tile-geometry.ts';
import type { StepContext } from '../types.ts';

/** Bits of the grid inner tiles' positions are quantized to, as the levels of detail are. */
const POSITION_BITS = 14;

/**
 * Writes a tile's document as GLB bytes with `EXT_meshopt_compression`, as the levels of detail are: a leaf
 * losslessly (the full-resolution geometry, every float kept), an inner tile quantized, which moves its vertices
 * by up to {@link quantizationError}; every buffer view starts at a multiple of 8 bytes ({@link alignBufferViews}).
 * A leaf built from {@link reorderLeaf}'s geometry (`reordered`) is already in
 * the order the codec wants and is only marked for it. The document is consumed.
 */
export async function tileGlb(
  io: PlatformIO,
  document: Document,
  tile: { leaf: boolean; reordered?: boolean },
  context: StepContext,
): Promise<Uint8Array> {
  if (tile.leaf && tile.reordered) {
    markLosslessMeshopt(document);
    return alignBufferViews(await io.writeBinary(document));
  }
  const compressed = await compressLod(
    document,
    { encoder: MeshoptEncoder, quantize: !tile.leaf, consumeSource: true },
    context,
  );
  return alignBufferViews(await io.writeBinary(compressed));
}

/**
 * A leaf's geometry with its triangles and vertices in the order glTF-Transform's `reorder` (for size) would give
 * its one primitive, done on the tile's ids before any vertex data is gathered: the document built from it needs
 * no reorder pass, which would copy every attribute again. Only for a tile of one primitive (one material): a
 * reorder of several would split their shared vertices. `MeshoptEncoder.ready` must have been awaited.
 */
export function reorderLeaf(geometry: TileGeometry): TileGeometry {
  const indices = geometry.indices.slice();
  const [remap, unique] = MeshoptEncoder.reorderMesh(indices, true, true);
  const vertices = new Uint32Array(unique);
  for (let i = 0; i < remap.length; i++) {
    if (remap[i] !== 0xffffffff) vertices[remap[i]] = geometry.vertices[i];
  }
  return { vertices, indices };
}

/**
 * How far quantizing a tile with this box may move a vertex, in metres: glTF-Transform spreads a grid of
 * 2^14 − 2 steps over the box's longest side on every axis; a vertex moves less than one step's diagonal.
 */
export function quantizationError(box: TileBox): number {
  const side = Math.max(...[0, 1, 2].map((axis) => box.max[axis] - box.min[axis]));
  return side > 0 ? (Math.sqrt(3) * side) / (2 ** POSITION_BITS - 2) : 0;
}
