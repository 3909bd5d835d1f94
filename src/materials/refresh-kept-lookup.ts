import { DEFAULT_MATERIAL } from './default-material.ts';
import type { CachedLookup } from './lookup-cache.ts';
import { patchLookupResponse, type ShownMaterial } from './lookup-response.ts';
import type { MaterialRepository } from './repository.ts';

/** Past this share of a reply's groups, reading them all again is simpler than patching. */
const MAX_PATCHED_SHARE = 0.5;

/**
 * A kept lookup reply brought up to the current material generation: as it is when nothing changed, patched with
 * the groups the change log names (and those showing a material whose fields changed) after reading only them,
 * or undefined when the log does not tell enough and the reply must be read anew.
 */
export async function refreshKeptLookup(
  kept: CachedLookup,
  repository: MaterialRepository,
): Promise<CachedLookup | undefined> {
  // A configuration deleted (or its model) leaves no trace in the change log: its reply is then read anew (404).
  if (kept.configurationId !== undefined && !(await repository.configurationExists(kept.configurationId)))
    return undefined;
  const changes = await repository.changesSince(kept.generation);
  if (!changes) return undefined;
  if (changes.generation === kept.generation) return kept;

  const { groupIds, shown } = kept.response;
  const affected: number[] = [];
  if (changes.groupIds.size > 0 || changes.materialIds.size > 0) {
    for (let i = 0; i < groupIds.length; i++) {
      if (changes.groupIds.has(groupIds[i]!) || changes.materialIds.has(shown[i]!)) affected.push(i);
    }
  }
  if (affected.length === 0) return { ...kept, generation: changes.generation };
  if (affected.length > groupIds.length * MAX_PATCHED_SHARE) return undefined;

  // Read after the change log: these rows are at least as new as the generation the patched reply is kept under.
  const affectedIds = affected.map((i) => groupIds[i]!);
  const read =
    kept.configurationId === undefined
      ? await repository.lookup(affectedIds)
      : await repository.lookupConfigured(affectedIds, kept.configurationId);
  if (!read) return undefined;
  const { bound } = read;
  const fallback = kept.includeDefault ? DEFAULT_MATERIAL : undefined;
  const updates = new Map<number, ShownMaterial | undefined>();
  for (const i of affected) updates.set(i, bound.get(groupIds[i]!) ?? fallback);
  return { ...kept, generation: changes.generation, response: patchLookupResponse(kept.response, updates) };
}
