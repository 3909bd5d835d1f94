import { createHash, type Hash } from 'node:crypto';
import type { ModelRow } from '../db/database.ts';
import type { ModelRepository } from '../catalog/repository.ts';
import { storedLods } from '../catalog/schemas.ts';
import type { ConfigurationRepository } from '../configurations/repository.ts';
import type { MaterialRepository } from '../materials/repository.ts';
import type { Material } from '../materials/schemas.ts';
import type { ExportKey } from '../jobs/job-types.ts';

/** One configuration as a `KHR_materials_variants` variant of a `materials=variants` export. */
export interface ExportVariant {
  /** The configuration's id, named in the fingerprint. */
  id: string;
  /** The configuration's name, which names the variant. */
  name: string;
  /** The material the configuration binds to each of the model's present parts it binds. */
  bound: [string, Material][];
}

/** What one export is made from, and the fingerprint that names it. */
export interface ExportPlan {
  /** Blob key of the LOD the export reads. */
  lodKey: string;
  /**
   * The material baked into each part's group: its present binding for `bound` and `variants`, the configuration's
   * over it when the key names one.
   */
  bound: [string, Material][];
  /** One per configuration of the model, oldest first, for `materials=variants`; empty otherwise. */
  variants: ExportVariant[];
  /** The name of the configuration the export bakes, which the file is named after too; null for none. */
  configurationName: string | null;
  /**
   * Hash of everything the file depends on: the model's name (the file's title), the LOD's content-named key (it
   * changes when a reprocess or a new version changes the geometry), the format and options, and each bound group with its material's id and
   * `updated_at`; for a configuration, its name too, and for variants each configuration's id, name and bindings.
   * Any binding made, moved or removed (the model's or a configuration's), any bound material edited, and any
   * configuration added, renamed or deleted for variants, gives a new fingerprint.
   */
  fingerprint: string;
}

/** Why there is nothing to plan: the model lacks the level of detail, or the configuration the key names. */
export type ExportPlanMissing = 'lod' | 'configuration';

/** What planning reads from. */
export interface ExportPlanSources {
  models: ModelRepository;
  materials: MaterialRepository;
  configurations: ConfigurationRepository;
}

/** Bump when a writer changes its output, so files cached by an older version are made again. */
const WRITER_VERSION = 2;

/** Reads what an export of a completed model would be made from now, or names what is missing. */
export async function planExport(
  deps: ExportPlanSources,
  model: ModelRow,
  key: ExportKey,
): Promise<ExportPlan | ExportPlanMissing> {
  const lod = storedLods(model).find((candidate) => candidate.level === key.lod);
  if (!lod) return 'lod';
  let bound: [string, Material][] = [];
  const variants: ExportVariant[] = [];
  let configurationName: string | null = null;
  if (key.materials !== 'source') {
    const parts = await deps.models.parts(model.id);
    const groupIds = parts.map((part) => part.group_id);
    const { bound: baked } = await deps.materials.lookup(groupIds);
    const configurationId = key.configuration_id ?? undefined;
    const configurations =
      key.materials === 'variants' || configurationId !== undefined
        ? await deps.configurations.withBindings(model.id, configurationId)
        : [];
    const records = materialRecords(deps.materials);
    if (configurationId !== undefined) {
      const [configuration] = configurations;
      if (!configuration) return 'configuration';
      configurationName = configuration.name;
      for (const [groupId, material] of await records(configuration.bindings)) baked.set(groupId, material);
    }
    bound = boundParts(groupIds, baked);
    if (key.materials === 'variants') {
      for (const { id, name, bindings } of configurations) {
        variants.push({ id, name, bound: boundParts(groupIds, await records(bindings)) });
      }
    }
  }
  const hash = createHash('sha256');
  const identity: unknown[] = [
    WRITER_VERSION,
    model.id,
    model.name,
    lod.key,
    key.format,
    key.lod,
    key.materials,
    key.unit,
  ];
  // Only when there is one, so the exports made before configurations keep their fingerprints.
  if (key.configuration_id) identity.push(key.configuration_id, configurationName);
  hash.update(JSON.stringify(identity));
  hashBindings(hash, bound);
  for (const variant of variants) {
    hash.update(JSON.stringify(['variant', variant.id, variant.name, variant.bound.length]));
    hashBindings(hash, variant.bound);
  }
  return { lodKey: lod.key, bound, variants, configurationName, fingerprint: hash.digest('hex') };
}

/**
 * Resolves bindings to material records, reading each material once however many groups and configurations bind
 * it; a binding to a material deleted meanwhile is left out, as its cascade will remove it.
 */
function materialRecords(materials: MaterialRepository) {
  const known = new Map<number, Material | undefined>();
  return async (bindings: ReadonlyMap<string, number>): Promise<Map<string, Material>> => {
    const resolved = new Map<string, Material>();
    for (const [groupId, materialId] of bindings) {
      if (!known.has(materialId)) known.set(materialId, await materials.get(materialId));
      const material = known.get(materialId);
      if (material) resolved.set(groupId, material);
    }
    return resolved;
  };
}

/** The model's groups that `materials` binds, in the order of its parts, each with its material. */
function boundParts(
  groupIds: readonly string[],
  materials: ReadonlyMap<string, Material>,
): [string, Material][] {
  const bound: [string, Material][] = [];
  for (const groupId of groupIds) {
    const material = materials.get(groupId);
    if (material) bound.push([groupId, material]);
  }
  return bound;
}

function hashBindings(hash: Hash, bound: readonly [string, Material][]): void {
  for (const [groupId, material] of bound) {
    hash.update(JSON.stringify([groupId, material.id, material.updated_at]));
  }
}
