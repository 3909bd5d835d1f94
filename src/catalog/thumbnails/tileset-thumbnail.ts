import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { createNodeIO } from '../../gltf/create-io.ts';
import { chooseTileCut } from '../../pipeline/tiles/choose-cut.ts';
import { glbTriangleCount } from '../../pipeline/tiles/glb-triangle-count.ts';
import type { TileJson, TilesetJson } from '../../pipeline/tiles/tileset-json.ts';
import { readGlb } from '../../render/scene/read-glb.ts';
import { tilePartsDocument } from '../../render/scene/tile-parts-document.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { tilesetFolderOf } from '../lod-keys.ts';

/**
 * Most triangles a thumbnail drawn from a tileset holds: far more than a 512² picture can show (the conversion's
 * first thumbnail draws the root's children, about half as many), and half the limit of a level drawn whole, as the
 * tiles are decoded to floats before they are drawn.
 */
export const TILESET_THUMBNAIL_TRIANGLES = 1_000_000;

/** What {@link tilesetThumbnailGlb} drew from. */
export interface TilesetThumbnailSource {
  /** One GLB of the chosen tiles, their parts as feature ids, as the renderer takes a batched level. */
  glb: Uint8Array;
  /** Tiles in the cut. */
  tiles: number;
  /** Triangles of the cut. */
  triangles: number;
}

/**
 * The GLB a tiled model's thumbnail is drawn from, read from its stored tileset alone: the cut through the tile
 * tree that fits `budget` triangles ({@link chooseTileCut}), only those tiles (and the children weighed and found
 * too heavy) read from storage; never the model's LOD 0.
 */
export async function tilesetThumbnailGlb(
  blobs: BlobStore,
  tilesetKey: string,
  budget = TILESET_THUMBNAIL_TRIANGLES,
): Promise<TilesetThumbnailSource> {
  const folder = tilesetFolderOf(tilesetKey);
  const tileset = JSON.parse((await buffer(await blobs.read(tilesetKey))).toString('utf8')) as TilesetJson;
  const loaded = new Map<TileJson, { bytes: Uint8Array; triangles: number }>();
  const cut = await chooseTileCut(
    tileset.root,
    async (tile) => {
      const bytes = new Uint8Array(await buffer(await blobs.read(tileKey(folder, tile.content.uri))));
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
    const { bytes, triangles: count } = loaded.get(tile)!;
    // Read one by one, dropped as soon as read: the decoded tiles, not their compressed bytes, are what stays.
    loaded.delete(tile);
    documents.push(await readGlb(bytes));
    triangles += count;
  }
  // With every extension registered: the parts' feature ids and table are written with the tiles' geometry.
  const glb = await (await createNodeIO()).writeBinary(tilePartsDocument(documents));
  return { glb, tiles: cut.length, triangles };
}

/** The storage key of a tile, its content URI resolved against the tileset's folder; one outside it is refused. */
function tileKey(folder: string, uri: string): string {
  const key = path.posix.normalize(`${folder}${decodeURIComponent(uri)}`);
  if (!key.startsWith(folder) || /^[a-z][a-z0-9+.-]*:/i.test(uri))
    throw new Error(`the tileset names a tile outside its folder: ${uri}`);
  return key;
}
