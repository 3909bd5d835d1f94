// Part identity across versions: which part of the version before a new part continues, so that it keeps that
// part's group_id (and with it the materials bound, the annotations pinned and the views saved on it).
import type { PartFingerprint, PreviousPart } from './types.ts';

/** A part of the new version, as matching sees it. */
export interface NewPart {
  /** The id the file gives the part (an IFC GlobalId, an author's `extras.group_id`), made unique; none otherwise. */
  fileId?: string;
  name: string;
  path: string;
  /** Whether `name` is the file's (a node's or mesh's), rather than one made up from the part's place. */
  named: boolean;
  fingerprint: PartFingerprint;
}

/** How a new part found the part it continues. */
export type MatchedBy = 'identity' | 'path-name' | 'geometry';

/** The previous part a new part continues, and how it was found. */
export interface PartMatch {
  group_id: string;
  by: MatchedBy;
}

/**
 * For each new part, the previous part it continues, or undefined for a new one. Tried in order, each among the
 * parts still unmatched on both sides, each only when its key picks exactly one part on each side:
 * 1. identity: the new part's file id equals a previous group_id (a part with a file id keeps it, matched or not);
 * 2. path + name (parts without a name of their own are skipped: `Part 3` names a place in the file, not a part);
 *    then the same with the path's first name left out, as most importers name the top node after the file, whose
 *    name a new version need not keep;
 * 3. geometry with position (geometry and transform hashes), and the name too for a part that has its own: copies
 *    of one shape under one name are told apart by their places, and a part the file leaves unnamed is found where
 *    it was.
 * A named part never continues a part of another name: where the name and the shape disagree, the part is added
 * and the other removed, so a binding, an annotation or a view never moves to another part. Every step is a hash
 * lookup, so matching is linear in the number of parts.
 */
export function matchParts(
  parts: readonly NewPart[],
  previous: readonly PreviousPart[],
): (PartMatch | undefined)[] {
  const matches: (PartMatch | undefined)[] = parts.map(() => undefined);
  const taken = new Set<number>();
  const byId = new Map<string, number>();
  previous.forEach((part, index) => byId.set(part.group_id, index));
  parts.forEach((part, index) => {
    if (part.fileId === undefined) return;
    const found = byId.get(part.fileId);
    if (found !== undefined && !taken.has(found)) {
      taken.add(found);
      matches[index] = { group_id: part.fileId, by: 'identity' };
    }
  });
  // Parts with a file id keep it: only the others may continue a previous part some other way.
  const open = (index: number) => parts[index].fileId === undefined && matches[index] === undefined;
  const pairUnique = (
    by: MatchedBy,
    keyOfNew: (part: NewPart) => string | undefined,
    keyOfPrevious: (part: PreviousPart) => string | undefined,
  ): void => {
    const fresh = groupBy(parts.map((_, index) => index).filter(open), (index) => keyOfNew(parts[index]));
    const old = groupBy(
      previous.map((_, index) => index).filter((index) => !taken.has(index)),
      (index) => keyOfPrevious(previous[index]),
    );
    for (const [key, [index, ...more]] of fresh) {
      const candidates = old.get(key);
      if (more.length > 0 || candidates?.length !== 1) continue;
      taken.add(candidates[0]);
      matches[index] = { group_id: previous[candidates[0]].group_id, by };
    }
  };
  pairUnique(
    'path-name',
    (part) => (part.named ? key(part.path, part.name) : undefined),
    (part) => key(part.path, part.name),
  );
  // Most importers name the top node after the file (`house-v2.obj`), which a new version's file may not share.
  pairUnique(
    'path-name',
    (part) => (part.named ? key(withoutTop(part.path), part.name) : undefined),
    (part) => key(withoutTop(part.path), part.name),
  );
  // Copies of one shape under one name, told apart by their places; never a part of another name.
  pairUnique(
    'geometry',
    (part) => (part.named ? placedShape(part.fingerprint, part.name) : undefined),
    (part) => placedShape(part.fingerprint, part.name),
  );
  // A part the file leaves unnamed has only its shape and place to say which part it is.
  pairUnique(
    'geometry',
    (part) => (part.named ? undefined : placedShape(part.fingerprint)),
    (part) => placedShape(part.fingerprint),
  );
  return matches;
}

/** Fields joined by a character no name holds (clean text has no control characters). */
function key(...fields: string[]): string {
  return fields.join('\u0000');
}

/** The key of a shape at its place, and its name when given; undefined without a fingerprint. */
function placedShape(fingerprint: PartFingerprint | null, name?: string): string | undefined {
  if (!fingerprint) return undefined;
  return name === undefined
    ? key(fingerprint.geometry, fingerprint.transform)
    : key(fingerprint.geometry, fingerprint.transform, name);
}

/** A path less its first name. */
function withoutTop(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '' : path.slice(slash + 1);
}

/** Indices grouped by key, in order; those without a key left out. */
function groupBy(indices: number[], keyOf: (index: number) => string | undefined): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const index of indices) {
    const key = keyOf(index);
    if (key === undefined) continue;
    const group = groups.get(key);
    if (group) group.push(index);
    else groups.set(key, [index]);
  }
  return groups;
}
