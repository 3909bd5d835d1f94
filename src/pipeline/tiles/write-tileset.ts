import type { PlatformIO } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { TILESET_THUMBNAIL_TRIANGLES, tileCutGlb } from '../../render/scene/tile-cut-glb.ts';
import type { TextureLadderCache } from '../lods/texture-ladder.ts';
import type { StepContext, TilesetOutput } from '../types.ts';
import { makeTiles, tileDepth } from './make-tiles.ts';
import type { CoarseLeaves, TilingPlan } from './tiling-plan.ts';

/** Step name used in logs. */
export const NAME = 'write-tileset';

/**
 * Levels under the root whose tiles are kept while the tileset is written, for the thumbnail's cut: 73 tiles at
 * most. With tiles near 65,536 triangles a cut within {@link TILESET_THUMBNAIL_TRIANGLES} refines no deeper, so it
 * is the cut a refresh draws; with tiles under about 14,000 (a model not far over the tiling threshold) a refresh
 * may refine one level further, where this cut stops. A level more would hold up to 585 tiles.
 */
const THUMBNAIL_CUT_DEPTH = 2;

/**
 * Makes the tileset of a model's soup, each file to `onFile` as it is made, and the GLB of the cut its thumbnail
 * is drawn from: the cut a later refresh draws from the stored tiles (tile-cut-glb.ts), from the tiles near the
 * root, kept as they are written ({@link THUMBNAIL_CUT_DEPTH}). The tiles' textures are LOD 1's and LOD 2's rungs:
 * with the levels' cache, each is encoded once for both.
 */
export async function writeTileset(
  source: Pick<TilingPlan, 'soup' | 'tree'> & {
    coarse?: CoarseLeaves;
    io: PlatformIO;
    textureCache: TextureLadderCache;
  },
  onFile: (path: string, bytes: Uint8Array) => Promise<void>,
  context: StepContext,
): Promise<{ tileset: TilesetOutput; cutGlb: Uint8Array }> {
  const { io } = source;
  const nearRoot = new Map<string, Uint8Array>();
  const made = await makeTiles(
    source.soup,
    {
      simplifier: MeshoptSimplifier,
      io,
      onFile: async (file, bytes) => {
        if ((tileDepth(file) ?? Infinity) <= THUMBNAIL_CUT_DEPTH) nearRoot.set(file, bytes);
        await onFile(file, bytes);
      },
      tree: source.tree,
      coarseLeaves: source.coarse,
      textures: { cache: source.textureCache },
    },
    context,
  );
  // The tileset's URIs are percent-encoded paths, as a refresh reads them; each tile is weighed once, then let go.
  const readTile = async (uri: string) => {
    const file = decodeURIComponent(uri);
    const bytes = nearRoot.get(file);
    nearRoot.delete(file);
    return bytes;
  };
  const cut = await tileCutGlb(made.tileset.root, readTile, TILESET_THUMBNAIL_TRIANGLES);
  context.logger.debug(`${NAME}: the thumbnail's cut holds ${cut.tiles} tiles, ${cut.triangles} triangles`);
  return {
    tileset: { tile_count: made.tileCount, size: made.bytes, leaf_triangles: made.leafTriangles },
    cutGlb: cut.glb,
  };
}
