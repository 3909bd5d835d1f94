import { createHash } from 'node:crypto';
import type { ModelRow } from '../db/database.ts';
import { toIso } from '../db/timestamps.ts';
import type { ModelRepository } from '../catalog/repository.ts';
import { storedLods } from '../catalog/schemas.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import type { Material } from '../materials/schemas.ts';
import type { BoundMaterial } from '../writers/bound-material.ts';
import type { ExportKey } from '../jobs/job-types.ts';

/** What one export is made from, and the fingerprint that names it. */
export interface ExportPlan {
  /** Blob key of the LOD the export reads. */
  lodKey: string;
  /** The material bound to each part's group, for `materials=bound`. */
  bound: [string, BoundMaterial][];
  /**
   * Hash of everything the file depends on: the model's `updated_at` (it changes on reprocess and every edit),
   * the LOD's content-named key, the format and options, and each bound group with its material's id and
   * `updated_at`. Any binding made, moved or removed, or any bound material edited, gives a new fingerprint.
   */
  fingerprint: string;
}

/** Bump when a writer changes its output, so files cached by an older version are made again. */
const WRITER_VERSION = 2;

/** Reads what an export of a completed model would be made from now; undefined when the LOD is missing. */
export async function planExport(
  deps: { models: ModelRepository; materials: MaterialRepository },
  model: ModelRow,
  key: ExportKey,
): Promise<ExportPlan | undefined> {
  const lod = storedLods(model).find((candidate) => candidate.level === key.lod);
  if (!lod) return undefined;
  const bound: [string, Material][] = [];
  if (key.materials === 'bound') {
    const parts = await deps.models.parts(model.id);
    const { bound: found } = await deps.materials.lookup(parts.map((part) => part.group_id));
    for (const part of parts) {
      const material = found.get(part.group_id);
      if (material) bound.push([part.group_id, material]);
    }
  }
  const hash = createHash('sha256');
  hash.update(
    JSON.stringify([
      WRITER_VERSION,
      model.id,
      toIso(model.updated_at),
      lod.key,
      key.format,
      key.lod,
      key.materials,
      key.unit,
    ]),
  );
  for (const [groupId, material] of bound) {
    hash.update(JSON.stringify([groupId, material.id, material.updated_at]));
  }
  return { lodKey: lod.key, bound, fingerprint: hash.digest('hex') };
}
