/**
 * Which levels of a model are files of their own. A level beyond LOD 0 that could not shrink enough is stored as
 * a copy of the level before it (`reduced: false`): fetching it would download the same bytes again, and listing
 * it would offer a choice that changes nothing.
 */
import type { Lod } from '../api/types.ts';

/** True when `lod` is a different file from `before`, the served level above it. */
function isOwnFile(lod: Lod, before: Lod): boolean {
  if (lod.reduced !== null) return lod.reduced;
  // Models converted before `reduced` was recorded: a copy carries the size and count of the level it copies.
  return lod.size !== before.size || lod.triangle_count !== before.triangle_count;
}

/** The levels worth fetching, finest first: the first level and every later one that is a file of its own. */
export function servedLevels(lods: readonly Lod[]): Lod[] {
  const served: Lod[] = [];
  for (const lod of [...lods].sort((a, b) => a.level - b.level)) {
    const before = served.at(-1);
    if (!before || isOwnFile(lod, before)) served.push(lod);
  }
  return served;
}

/** For each served level, the levels folded into it (copies of it), by level number. */
export function foldedLevels(lods: readonly Lod[]): Map<number, Lod[]> {
  const served = servedLevels(lods);
  const folded = new Map<number, Lod[]>(served.map((lod) => [lod.level, []]));
  for (const lod of [...lods].sort((a, b) => a.level - b.level)) {
    if (folded.has(lod.level)) continue;
    const into = served.filter((own) => own.level < lod.level).at(-1);
    if (into) folded.get(into.level)?.push(lod);
  }
  return folded;
}
