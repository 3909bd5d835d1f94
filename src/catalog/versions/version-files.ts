// The files of one version, removed with it: a later version's whole folder, or for version 1 (which shares the
// model's folder with the model's thumbnail) exactly the files its row names.
import type { ModelVersionRow } from '../../db/database.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { versionFolder } from './schemas.ts';

/**
 * Removes the files of a deleted version and nothing else: its picture stays when `thumbnailInUse` (the model or
 * another version names the same file, which only version 1's picture in the model's folder can be).
 */
export async function removeVersionFiles(
  blobs: BlobStore,
  row: ModelVersionRow,
  thumbnailInUse: boolean,
): Promise<void> {
  if (row.number > 1) {
    await blobs.deletePrefix(versionFolder(row.model_id, row.number));
    return;
  }
  const lods = JSON.parse(row.lods) as { key: string }[];
  const keys = new Set([row.source_key, ...lods.map((lod) => lod.key)]);
  if (row.thumbnail_key && !thumbnailInUse) keys.add(row.thumbnail_key);
  await Promise.all([...keys].map((key) => blobs.delete(key)));
  if (row.tileset_key)
    await blobs.deletePrefix(row.tileset_key.slice(0, row.tileset_key.lastIndexOf('/') + 1));
}
