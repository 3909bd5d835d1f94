// The files of one conversion job: the upload fetched into the job's folder, the levels (and tileset) the thread
// wrote moved into storage, and those of the conversion before removed once they are replaced.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ModelRow } from '../../db/database.ts';
import { prepareSource } from '../../pipeline/prepare-source.ts';
import type { DeclaredUp, ImportSource, LengthUnit } from '../../pipeline/types.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { PooledFileConversion } from '../../threads/pool-types.ts';
import type { TilesetFiles } from '../../threads/thread-protocol.ts';
import { TILESET_FILE_NAME, lodKeyOfHash, tilesetFolder, tilesetFolderOf } from '../lod-keys.ts';
import { uploadFormat } from '../model-rows.ts';
import type { StoredLod } from './conversion-record.ts';

/**
 * Copies the upload into the job's folder and, for a zip, extracts it safely; returns the model file to read,
 * of the format the upload was judged to be.
 */
export async function fetchSource(
  blobs: BlobStore,
  model: Pick<ModelRow, 'source_key' | 'source_entry' | 'format' | 'unit' | 'up_axis'>,
  workDir: string,
): Promise<ImportSource> {
  const local = path.join(workDir, 'upload', path.basename(model.source_key));
  await fsp.mkdir(path.dirname(local), { recursive: true });
  await blobs.download(model.source_key, local);
  const source = await prepareSource({ file: local, upload: uploadFormat(model), workDir });
  // What the uploader declared for a file that states no unit or axis.
  return {
    ...source,
    ...(model.unit ? { unit: model.unit as LengthUnit } : {}),
    ...(model.up_axis ? { up: model.up_axis as DeclaredUp } : {}),
  };
}

/**
 * Moves the levels the thread wrote into storage under content-named keys, in `folder` (a version's) or the
 * model's own; a copy points at the level before.
 */
export async function storeLods(
  blobs: BlobStore,
  modelId: string,
  result: PooledFileConversion,
  folder?: string,
): Promise<StoredLod[]> {
  const lods: StoredLod[] = [];
  for (const lod of result.lods) {
    const previous = lods[lods.length - 1];
    // A level that could not shrink points at the level before it instead of storing a copy.
    if (!lod.reduced && previous) {
      lods.push({ ...previous, level: lod.level, reduced: false });
      continue;
    }
    const key = lodKeyOfHash(modelId, lod.level, lod.sha256, folder);
    const { size } = await blobs.putFile(key, lod.file);
    lods.push({
      level: lod.level,
      key,
      triangle_count: lod.triangle_count,
      size,
      error: lod.error,
      reduced: lod.reduced,
    });
  }
  return lods;
}

/** Removes the LOD files of the conversion before that this one did not write again. */
export async function removeReplacedLods(
  blobs: BlobStore,
  oldLods: StoredLod[],
  newLods: StoredLod[],
): Promise<void> {
  const keep = new Set(newLods.map((lod) => lod.key));
  const stale = oldLods.map((lod) => lod.key).filter((key) => !keep.has(key));
  await Promise.all(stale.map((key) => blobs.delete(key)));
}

/** Files stored at once while a tileset is moved into storage (hundreds of small tiles, each one request to S3). */
const TILE_UPLOADS_AT_ONCE = 8;

/**
 * Moves the tileset the thread wrote into storage, in a folder named by the hash of its files
 * (`models/<id>/tileset-<hash>/`, `tileset.json` and `tiles/…` in it, as the tileset's relative URIs expect);
 * returns the key of its `tileset.json`. When a file cannot be stored, what was written is removed before the
 * error goes on, unless the folder is that of `currentKey` (the model's recorded tileset, made again byte for
 * byte by a reprocess), which is still served.
 */
export async function storeTileset(
  blobs: BlobStore,
  modelId: string,
  tileset: TilesetFiles,
  currentKey: string | null,
  folder?: string,
): Promise<string> {
  const files = (await fsp.readdir(tileset.dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path.relative(tileset.dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    )
    .sort();
  if (!files.includes(TILESET_FILE_NAME))
    throw new Error(`the tileset in ${tileset.dir} has no ${TILESET_FILE_NAME}`);
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\n`);
    for await (const chunk of createReadStream(path.join(tileset.dir, file))) hash.update(chunk as Buffer);
  }
  const target = tilesetFolder(modelId, hash.digest('hex'), folder);
  try {
    for (let start = 0; start < files.length; start += TILE_UPLOADS_AT_ONCE) {
      // Settled, not raced: a put still under way when another fails would land after the clean-up below.
      const stored = await Promise.allSettled(
        files
          .slice(start, start + TILE_UPLOADS_AT_ONCE)
          .map((file) => blobs.putFile(`${target}${file}`, path.join(tileset.dir, file))),
      );
      const failed = stored.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    }
  } catch (error) {
    await removeUnrecordedTileset(blobs, `${target}${TILESET_FILE_NAME}`, currentKey);
    throw error;
  }
  return `${target}${TILESET_FILE_NAME}`;
}

/**
 * Removes the folder of a tileset stored (wholly or in part) by a conversion that then failed, unless it is the
 * folder of `currentKey` (the model's recorded tileset, made again byte for byte by a reprocess), which is still
 * served. The failure is the error to report: a clean-up that fails too leaves what a delete clears.
 */
export async function removeUnrecordedTileset(
  blobs: BlobStore,
  key: string,
  currentKey: string | null,
): Promise<void> {
  const folder = tilesetFolderOf(key);
  if (currentKey && tilesetFolderOf(currentKey) === folder) return;
  await blobs.deletePrefix(folder).catch(() => undefined);
}

/** Removes the tileset of the conversion before once another (or none) is recorded in its place. */
export async function removeReplacedTileset(
  blobs: BlobStore,
  oldKey: string | null,
  newKey: string | null,
): Promise<void> {
  if (oldKey && oldKey !== newKey) await blobs.deletePrefix(tilesetFolderOf(oldKey));
}
