// A tiled model's thumbnail is drawn from a cut through its tile tree, both when it is converted and when it is
// drawn again later from its stored tiles; this is that cut for both, so the two pictures agree (the conversion has
// the top levels' tiles at hand, see convert-model.ts).
import { createNodeIO } from '../../gltf/create-io.ts';
import { chooseTileCut } from '../../pipeline/tiles/choose-cut.ts';
import { glbTriangleCount } from '../../pipeline/tiles/glb-triangle-count.ts';
import type { TileJson } from '../../pipeline/tiles/tileset-json.ts';
import { readGlb } from './read-glb.ts';
import { tilePartsDocument } from './tile-parts-document.ts';

/**
 * Most triangles a thumbnail drawn from a tileset holds: far more than a 512² picture can show, and half the limit
 * of a level drawn whole, as the tiles are decoded to floats before they are drawn.
 */
export const TILESET_THUMBNAIL_TRIANGLES = 1_000_000;

/** The bytes of a tile by its content URI as the tileset gives it; undefined for a tile not at hand. */
export type TileReader = (uri: string) => Promise<Uint8Array | undefined>;

/** A cut through a tile tree, laid out for the renderer. */
export interface TileCutGlb {
  /** One GLB of the chosen tiles, their parts as feature ids, as the renderer takes a batched level. */
  glb: Uint8Array;
  /** Tiles in the cut. */
  tiles: number;
  /** Triangles of the cut. */
  triangles: number;
}

/**
 * The GLB of the cut through the tree under `root` that fits `budget` triangles ({@link chooseTileCut}): only the
 * tiles it weighs are read, and a tile not at hand is never refined into (its parent stays in the cut). Throws when
 * the root itself is not at hand.
 */
export async function tileCutGlb(
  root: TileJson,
  readTile: TileReader,
  budget = TILESET_THUMBNAIL_TRIANGLES,
): Promise<TileCutGlb> {
  const loaded = new Map<TileJson, { bytes: Uint8Array; triangles: number }>();
  const cut = await chooseTileCut(
    root,
    async (tile) => {
      const bytes = await readTile(tile.content.uri);
      // Never the root: a cut weighed from an infinite total would refine every tile.
      if (!bytes && tile === root)
        throw new Error(`the tileset's root tile ${tile.content.uri} cannot be read`);
      if (!bytes) return Infinity;
      const triangles = glbTriangleCount(bytes);
      loaded.set(tile, { bytes, triangles });
      return triangles;
    },
    budget,
    (tiles) => tiles.forEach((tile) => loaded.delete(tile)),
  );
  const documents = [];
  let triangles = 0;
  for (const tile of cut) {
    // Every tile of the cut was weighed, and read, on its way in.
    const chosen = loaded.get(tile)!;
    // Read one by one, dropped as soon as read: the decoded tiles, not their compressed bytes, are what stays.
    loaded.delete(tile);
    documents.push(await readGlb(chosen.bytes));
    triangles += chosen.triangles;
  }
  // With every extension registered: the parts' feature ids and table are written with the tiles' geometry.
  const glb = await (await createNodeIO()).writeBinary(tilePartsDocument(documents));
  return { glb, tiles: cut.length, triangles };
}
