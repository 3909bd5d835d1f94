import { createHash } from 'node:crypto';

/** Blob key of one LOD: the content hash in the name lets clients cache it forever. */
export function lodKey(modelId: string, level: number, glb: Uint8Array): string {
  return lodKeyOfHash(modelId, level, createHash('sha256').update(glb).digest('hex'));
}

/**
 * {@link lodKey} from the LOD's SHA-256 in hex, when whoever wrote the file already hashed it; `folder` is the
 * model's own by default, a later version's (`models/<id>/v<n>/`) for that version's levels.
 */
export function lodKeyOfHash(
  modelId: string,
  level: number,
  sha256: string,
  folder = modelPrefix(modelId),
): string {
  return `${folder}lod${level}-${sha256.slice(0, 16)}.glb`;
}

/** Name of a tileset's own file in its folder; the tiles lie beside it under `tiles/`. */
export const TILESET_FILE_NAME = 'tileset.json';

/**
 * Folder of one conversion's tileset, named by a hash of all its files: a reprocess that changes anything writes a
 * folder beside the old one, which goes once the new one is recorded; clients never see a mix of the two.
 */
export function tilesetFolder(modelId: string, sha256: string, folder = modelPrefix(modelId)): string {
  return `${folder}tileset-${sha256.slice(0, 16)}/`;
}

/** The folder of a stored tileset, from the key of its `tileset.json`. */
export function tilesetFolderOf(tilesetKey: string): string {
  return tilesetKey.slice(0, tilesetKey.length - TILESET_FILE_NAME.length);
}

/** Blob key of an uploaded original, under a name safe on every file system (in `folder`, a version's). */
export function sourceKey(modelId: string, filename: string, folder = modelPrefix(modelId)): string {
  const safe =
    filename
      .replace(/[^A-Za-z0-9._-]+/g, '_')
      .replace(/^\.+/, '')
      .slice(-120) || 'upload';
  return `${folder}source/${safe}`;
}

/** Prefix of every blob of a model (upload, LODs, thumbnail), removed with the model. */
export function modelPrefix(modelId: string): string {
  return `models/${modelId}/`;
}
