/**
 * The rows the parts tree shows, as a flat array over the {@link TreeIndex}: the nodes a filter keeps, with the
 * subtrees of collapsed folders left out, and each row's position among its siblings shown (aria-posinset,
 * aria-setsize), which a screen reader cannot count itself when only some rows are in the DOM. Pure and linear.
 */
import type { TreeIndex } from './tree-index.ts';

/** The rows shown, in order. */
export interface TreeRows {
  /** The node of each row. */
  nodes: Int32Array;
  /** The row of each node, -1 for a node not shown. */
  rowOf: Int32Array;
  /** Each row's 1-based position among its parent's rows (aria-posinset). */
  posinset: Int32Array;
  /** How many rows its parent shows (aria-setsize). */
  setsize: Int32Array;
}

/** Every folder open, as the tree first shows. */
export function allExpanded(index: TreeIndex): Uint8Array {
  const expanded = new Uint8Array(index.size);
  for (let node = 0; node < index.size; node++) if (index.part[node] === -1) expanded[node] = 1;
  return expanded;
}

/**
 * The nodes a filter keeps: a part when `keep` flags it (by part index), a folder when anything under it is
 * kept. Null (no filter) keeps every node. One pass from the end: in pre-order every child comes after its parent.
 */
export function shownNodes(index: TreeIndex, keep: Uint8Array | null): Uint8Array | null {
  if (keep === null) return null;
  const shown = new Uint8Array(index.size);
  for (let node = index.size - 1; node >= 0; node--) {
    const part = index.part[node]!;
    if (part >= 0 && keep[part] !== 1) continue;
    if (part === -1 && shown[node] !== 1) continue;
    shown[node] = 1;
    const parent = index.parent[node]!;
    if (parent >= 0) shown[parent] = 1;
  }
  return shown;
}

/** Opens every folder that `shown` keeps, so a search's finds are in sight (the person may close them again). */
export function expandShown(index: TreeIndex, expanded: Uint8Array, shown: Uint8Array): void {
  for (let node = 0; node < index.size; node++)
    if (index.part[node] === -1 && shown[node] === 1) expanded[node] = 1;
}

/** Opens the folders above `node`, so its row is shown; true when any was closed. */
export function expandTo(index: TreeIndex, expanded: Uint8Array, node: number): boolean {
  let opened = false;
  for (let parent = index.parent[node]!; parent >= 0; parent = index.parent[parent]!) {
    if (expanded[parent] !== 1) opened = true;
    expanded[parent] = 1;
  }
  return opened;
}

/** The rows of the nodes `shown` keeps (every node when null), skipping what closed folders hold. */
export function layOutRows(index: TreeIndex, expanded: Uint8Array, shown: Uint8Array | null): TreeRows {
  const nodes = new Int32Array(index.size);
  const rowOf = new Int32Array(index.size).fill(-1);
  const posinset = new Int32Array(index.size);
  // Rows counted under each parent so far, at parent + 1 (the top's slot is 0).
  const children = new Int32Array(index.size + 1);
  let count = 0;
  let node = 0;
  while (node < index.size) {
    if (shown !== null && shown[node] !== 1) {
      node = index.end[node]!;
      continue;
    }
    nodes[count] = node;
    rowOf[node] = count;
    posinset[count] = ++children[index.parent[node]! + 1]!;
    count += 1;
    node = index.part[node] === -1 && expanded[node] !== 1 ? index.end[node]! : node + 1;
  }
  const setsize = new Int32Array(count);
  for (let row = 0; row < count; row++) setsize[row] = children[index.parent[nodes[row]!]! + 1]!;
  return { nodes: nodes.slice(0, count), rowOf, posinset: posinset.slice(0, count), setsize };
}

/** What a key does on a row: move the focus to another row, open or close a folder, or nothing. */
export type TreeKeyAction =
  | { kind: 'focus'; row: number }
  | { kind: 'expand'; node: number }
  | { kind: 'collapse'; node: number }
  | null;

/**
 * The tree's keys, as the WAI-ARIA tree pattern has them: ↓/↑ the next or previous row, → opens a closed folder or
 * enters an open one, ← closes an open folder or goes up to the parent, Home/End the first or last row, Page
 * Down/Up a page of `page` rows.
 */
export function treeKeyAction(
  index: TreeIndex,
  rows: TreeRows,
  expanded: Uint8Array,
  row: number,
  key: string,
  page: number,
): TreeKeyAction {
  const last = rows.nodes.length - 1;
  if (last < 0) return null;
  const focus = (target: number): TreeKeyAction => ({
    kind: 'focus',
    row: Math.max(0, Math.min(last, target)),
  });
  const node = rows.nodes[row]!;
  const folder = index.part[node] === -1;
  switch (key) {
    case 'ArrowDown':
      return focus(row + 1);
    case 'ArrowUp':
      return focus(row - 1);
    case 'Home':
      return focus(0);
    case 'End':
      return focus(last);
    case 'PageDown':
      return focus(row + page);
    case 'PageUp':
      return focus(row - page);
    case 'ArrowRight':
      if (!folder) return null;
      if (expanded[node] !== 1) return { kind: 'expand', node };
      return row < last && index.parent[rows.nodes[row + 1]!] === node ? focus(row + 1) : null;
    case 'ArrowLeft': {
      if (folder && expanded[node] === 1) return { kind: 'collapse', node };
      const parent = index.parent[node]!;
      return parent >= 0 && rows.rowOf[parent]! >= 0 ? focus(rows.rowOf[parent]!) : null;
    }
    default:
      return null;
  }
}
