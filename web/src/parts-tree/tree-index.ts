/**
 * The parts tree laid flat once per model: folders (from the parts' paths) and parts as nodes in pre-order, each
 * with its depth, parent and the end of its subtree, and each part's search text folded once. Every later pass
 * (search, expand, collapse, the rows shown) is a linear scan of these arrays, never a walk of the DOM.
 */
import { searchFold } from '../../../src/db/search-fold.ts';

/** What the tree needs of a part: the catalog's part, or a removed part of a compared version. */
export interface TreePart {
  group_id: string;
  name: string;
  path: string;
}

/** A group of parts shown as one more folder at the tree's end, apart from the paths (compare mode's removed parts). */
export interface TreeAppendix<P extends TreePart> {
  label: string;
  parts: P[];
}

/** The flat tree: node `n` is a folder when `part[n]` is -1, else the part at that index of `parts`. */
export interface TreeIndex<P extends TreePart = TreePart> {
  /** The parts: the model's in its order, then the appendix's. */
  parts: P[];
  /** Number of nodes. */
  size: number;
  /** The ARIA level of each node: 1 for the tree's top. */
  level: Uint16Array;
  /** Each node's parent node, -1 at the top. */
  parent: Int32Array;
  /** One past each node's last descendant: a collapsed or filtered-out node is skipped by jumping there. */
  end: Int32Array;
  /** The part index of each node, -1 for a folder. */
  part: Int32Array;
  /** Each folder's name ('' for a part: its name is on the part). */
  folderName: string[];
  /** The node of each group id. */
  nodeOf: Map<string, number>;
  /** Each part's "folder path/name", folded as a search compares it (indexed by part). */
  searchText: string[];
}

interface Folder {
  name: string;
  folders: Map<string, Folder>;
  /** Indexes into the parts. */
  parts: number[];
}

/**
 * Builds the index of `parts`, folders before parts at each level as the tree lists them, with `appendix` as a
 * folder of its own after everything. Linear in parts and folders.
 */
export function buildTreeIndex<P extends TreePart>(parts: P[], appendix?: TreeAppendix<P>): TreeIndex<P> {
  const all = appendix ? [...parts, ...appendix.parts] : parts;
  const root: Folder = { name: '', folders: new Map(), parts: [] };
  for (let index = 0; index < parts.length; index++) {
    let folder = root;
    const path = parts[index]!.path;
    for (const segment of path ? path.split('/') : []) {
      let child = folder.folders.get(segment);
      if (!child) {
        child = { name: segment, folders: new Map(), parts: [] };
        folder.folders.set(segment, child);
      }
      folder = child;
    }
    folder.parts.push(index);
  }
  const extra: Folder | null =
    appendix && appendix.parts.length > 0
      ? { name: appendix.label, folders: new Map(), parts: appendix.parts.map((_, at) => parts.length + at) }
      : null;

  const folderCount = countFolders(root) - 1 + (extra ? 1 : 0);
  const size = folderCount + all.length;
  const index: TreeIndex<P> = {
    parts: all,
    size,
    level: new Uint16Array(size),
    parent: new Int32Array(size),
    end: new Int32Array(size),
    part: new Int32Array(size),
    folderName: new Array<string>(size).fill(''),
    nodeOf: new Map(),
    searchText: new Array<string>(all.length),
  };
  let next = 0;
  // Recursion is as deep as the source's node hierarchy, which stays far within the stack.
  const placeFolder = (folder: Folder, parent: number, level: number, path: string): void => {
    const node = next++;
    index.level[node] = level;
    index.parent[node] = parent;
    index.part[node] = -1;
    index.folderName[node] = folder.name;
    placeChildren(folder, node, level + 1, path ? `${path}/${folder.name}` : folder.name);
    index.end[node] = next;
  };
  const placeChildren = (folder: Folder, parent: number, level: number, path: string): void => {
    for (const child of folder.folders.values()) placeFolder(child, parent, level, path);
    for (const at of folder.parts) placePart(at, parent, level, path);
  };
  const placePart = (at: number, parent: number, level: number, path: string): void => {
    const node = next++;
    const part = all[at]!;
    index.level[node] = level;
    index.parent[node] = parent;
    index.end[node] = node + 1;
    index.part[node] = at;
    index.nodeOf.set(part.group_id, node);
    index.searchText[at] = foldName(`${path}/${part.name}`);
  };
  placeChildren(root, -1, 1, '');
  if (extra) placeFolder(extra, -1, 1, '');
  return index;
}

/** Matches text with a character beyond ASCII, which folding may change by more than its case. */
const BEYOND_ASCII = /[^\p{ASCII}]/u;

/**
 * A part's path and name folded as {@link searchFold} folds them; ASCII text (most CAD names) is only lowered, which
 * is all that folding does to it, at a fraction of its cost over 100,000 names.
 */
export function foldName(text: string): string {
  return BEYOND_ASCII.test(text) ? searchFold(text) : text.toLowerCase();
}

/** Folders under and including `folder`. */
function countFolders(folder: Folder): number {
  let count = 1;
  const stack = [...folder.folders.values()];
  while (stack.length > 0) {
    const next = stack.pop()!;
    count += 1;
    stack.push(...next.folders.values());
  }
  return count;
}

/**
 * The parts whose folder path and name contain `text` (case- and accent-insensitive, as the catalog's `q=`
 * compares), as a flag per part; null for an empty text, which keeps every part.
 */
export function searchParts(index: TreeIndex, text: string): Uint8Array | null {
  const wanted = searchFold(text.trim());
  if (!wanted) return null;
  const found = new Uint8Array(index.parts.length);
  for (let at = 0; at < found.length; at++) if (index.searchText[at]!.includes(wanted)) found[at] = 1;
  return found;
}
