import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import type { TilesetJson } from '../../pipeline/tiles/tileset-json.ts';
import { TILESET_THUMBNAIL_TRIANGLES, tileCutGlb } from '../../render/scene/tile-cut-glb.ts';
import type { TileCutGlb } from '../../render/scene/tile-cut-glb.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { tilesetFolderOf } from '../lod-keys.ts';

/**
 * The GLB a tiled model's thumbnail is drawn from, read from its stored tileset alone: the cut through the tile
 * tree that fits `budget` triangles ({@link tileCutGlb}, as its conversion drew it), only those tiles (and the
 * children weighed and found too heavy) read from storage; never the model's LOD 0.
 */
export async function tilesetThumbnailGlb(
  blobs: BlobStore,
  tilesetKey: string,
  budget = TILESET_THUMBNAIL_TRIANGLES,
): Promise<TileCutGlb> {
  const folder = tilesetFolderOf(tilesetKey);
  const tileset = JSON.parse((await buffer(await blobs.read(tilesetKey))).toString('utf8')) as TilesetJson;
  return tileCutGlb(
    tileset.root,
    async (uri) => new Uint8Array(await buffer(await blobs.read(tileKey(folder, uri)))),
    budget,
  );
}

/** The storage key of a tile, its content URI resolved against the tileset's folder; one outside it is refused. */
function tileKey(folder: string, uri: string): string {
  const key = path.posix.normalize(`${folder}${decodeURIComponent(uri)}`);
  if (!key.startsWith(folder) || /^[a-z][a-z0-9+.-]*:/i.test(uri))
    throw new Error(`the tileset names a tile outside its folder: ${uri}`);
  return key;
}
