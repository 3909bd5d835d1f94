// The part-level diff of two versions, over the contract's records: parts are matched by group id (the
// conversion settled identity when it gave a continued part its predecessor's id), then compared fingerprint by
// fingerprint; a part stored without fingerprints compares by name alone.
import type { VersionPart } from './repository.ts';

/** A part named in a diff. */
export interface PartRef {
  group_id: string;
  name: string;
}

/** What can change about a part that persists. */
export type ChangeKind = 'geometry' | 'transform' | 'name' | 'properties' | 'material';

/** A part in both versions that differs, and how. */
export interface ChangedPart extends PartRef {
  what: ChangeKind[];
}

/** The parts added, removed, changed and unchanged from one version to another, with their counts. */
export interface PartDiff {
  added: PartRef[];
  removed: PartRef[];
  changed: ChangedPart[];
  unchanged: PartRef[];
  counts: { added: number; removed: number; changed: number; unchanged: number };
}

/** The record a diff reads of each part. */
export type VersionPartRecord = Pick<VersionPart, 'group_id' | 'name' | 'fingerprint'>;

const FINGERPRINT_KINDS = ['geometry', 'transform', 'properties', 'material'] as const;

/** Compares the parts of version `from` with those of version `to`, in `to`'s order (removed in `from`'s). */
export function compareVersionParts(
  from: readonly VersionPartRecord[],
  to: readonly VersionPartRecord[],
): PartDiff {
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
    const what: ChangeKind[] = [];
    if (old.fingerprint && part.fingerprint) {
      for (const kind of FINGERPRINT_KINDS) {
        if (old.fingerprint[kind] !== part.fingerprint[kind]) what.push(kind);
      }
    }
    if (old.name !== part.name) what.push('name');
    if (what.length > 0) diff.changed.push({ ...ref, what: orderKinds(what) });
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

const KIND_ORDER: readonly ChangeKind[] = ['geometry', 'transform', 'name', 'properties', 'material'];

/** The kinds in the contract's order, so answers compare equal whatever found them first. */
function orderKinds(kinds: ChangeKind[]): ChangeKind[] {
  return KIND_ORDER.filter((kind) => kinds.includes(kind));
}
