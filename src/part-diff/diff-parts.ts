// The part-level diff of two versions of a model, from the parts each stored (identity was settled when the later
// version was converted: a part that continues another carries its group_id).
import type { PartFingerprint } from '../pipeline/types.ts';

/** A part of one version as the diff reads it. */
export interface VersionPartRecord {
  group_id: string;
  name: string;
  /** Null for a part stored before fingerprints existed: only its name can be compared. */
  fingerprint: PartFingerprint | null;
}

/** A part named in a diff. */
export interface PartRef {
  group_id: string;
  name: string;
}

/** What can change about a part that both versions have. */
export type PartChange = 'geometry' | 'transform' | 'name' | 'properties' | 'material';

/** A part both versions have that changed, with what changed (in the order of {@link PART_CHANGES}). */
export interface ChangedPart extends PartRef {
  what: PartChange[];
}

/** The diff of two versions: parts only the later has, only the earlier has, changed, and unchanged. */
export interface PartDiff {
  added: PartRef[];
  removed: PartRef[];
  changed: ChangedPart[];
  unchanged: PartRef[];
  counts: { added: number; removed: number; changed: number; unchanged: number };
}

/** Every kind of change, in the order a {@link ChangedPart} lists them. */
export const PART_CHANGES: readonly PartChange[] = [
  'geometry',
  'transform',
  'name',
  'properties',
  'material',
];

const FINGERPRINT_CHANGES = ['geometry', 'transform', 'properties', 'material'] as const;

/**
 * Diffs two versions' parts, matched by group_id: a part of `to` whose id `from` lacks is added, the reverse removed;
 * a part in both is changed when its name or any fingerprint hash differs. When either side has no fingerprint,
 * only the name is compared (an unknown is no change). Parts are listed in the order of `to`, removed ones in the
 * order of `from`; the part as `to` has it names a changed or unchanged part.
 */
export function diffParts(from: readonly VersionPartRecord[], to: readonly VersionPartRecord[]): PartDiff {
  const before = new Map(from.map((part) => [part.group_id, part]));
  const after = new Set(to.map((part) => part.group_id));
  const diff: PartDiff = {
    added: [],
    removed: [],
    changed: [],
    unchanged: [],
    counts: { added: 0, removed: 0, changed: 0, unchanged: 0 },
  };
  for (const part of to) {
    const ref = { group_id: part.group_id, name: part.name };
    const old = before.get(part.group_id);
    if (!old) {
      diff.added.push(ref);
      continue;
    }
    const what = changesOf(old, part);
    if (what.length > 0) diff.changed.push({ ...ref, what });
    else diff.unchanged.push(ref);
  }
  for (const part of from) {
    if (!after.has(part.group_id)) diff.removed.push({ group_id: part.group_id, name: part.name });
  }
  diff.counts = {
    added: diff.added.length,
    removed: diff.removed.length,
    changed: diff.changed.length,
    unchanged: diff.unchanged.length,
  };
  return diff;
}

/** What differs between two records of one part, in the order of {@link PART_CHANGES}. */
function changesOf(from: VersionPartRecord, to: VersionPartRecord): PartChange[] {
  const changed = new Set<PartChange>();
  if (from.name !== to.name) changed.add('name');
  if (from.fingerprint && to.fingerprint) {
    for (const kind of FINGERPRINT_CHANGES) {
      if (from.fingerprint[kind] !== to.fingerprint[kind]) changed.add(kind);
    }
  }
  return PART_CHANGES.filter((kind) => changed.has(kind));
}
