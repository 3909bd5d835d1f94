// The files of one conversion job: the upload fetched into the job's folder, the levels the thread wrote moved
// into storage, and the levels of the conversion before removed once they are replaced.
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { ModelRow } from '../db/database.ts';
import { prepareSource } from '../pipeline/prepare-source.ts';
import type { DeclaredUp, ImportSource, LengthUnit } from '../pipeline/types.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { PooledFileConversion } from '../threads/pool-types.ts';
import { lodKeyOfHash } from './lod-keys.ts';
import { uploadFormat } from './model-rows.ts';
import type { StoredLod } from './repository.ts';

/**
 * Copies the upload into the job's folder and, for a zip, extracts it safely; returns the model file to read,
 * of the format the upload was judged to be.
 */
export async function fetchSource(blobs: BlobStore, model: ModelRow, workDir: string): Promise<ImportSource> {
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

/** Moves the levels the thread wrote into storage under content-named keys; a copy points at the level before. */
export async function storeLods(
  blobs: BlobStore,
  modelId: string,
  result: PooledFileConversion,
): Promise<StoredLod[]> {
  const lods: StoredLod[] = [];
  for (const lod of result.lods) {
    const previous = lods[lods.length - 1];
    // A level that could not shrink points at the level before it instead of storing a copy.
    if (!lod.reduced && previous) {
      lods.push({ ...previous, level: lod.level, reduced: false });
      continue;
    }
    const key = lodKeyOfHash(modelId, lod.level, lod.sha256);
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
