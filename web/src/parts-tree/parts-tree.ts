/**
 * The parts of a model as a tree following their node paths, selectable like the view. Only the rows in or near
 * the visible area are in the DOM (`virtual-rows.ts`), over a flat index of the tree built once per model
 * (`tree-index.ts`) and the rows a filter and the open folders leave (`tree-rows.ts`), so a model of 100,000
 * parts scrolls, searches and follows the selection as one of ten does.
 */
import type { Material, Part } from '../api/types.ts';
import { h, uid } from '../ui/dom.ts';
import { formatCount, isPointCloud } from '../ui/format.ts';
import type { PartDiffState } from '../viewer/diff-colors.ts';
import { createTreeChangeFilter } from './tree-changes.ts';
import { listenToTreeInput } from './tree-input.ts';
import { buildTreeIndex, searchParts, type TreeIndex } from './tree-index.ts';
import { createRow, updateFolderRow, updatePartRow, type TreeEntry } from './tree-row.ts';
import { allExpanded, expandShown, expandTo, layOutRows, shownNodes, type TreeRows } from './tree-rows.ts';
import { createVirtualRows } from './virtual-rows.ts';

/** The rendered tree and the updates the model page pushes into it. */
export interface PartsTree {
  element: HTMLElement;
  setSelection: (selection: Set<string>) => void;
  setMaterials: (paint: Map<string, Material>) => void;
  /** Marks hidden parts, which stay in the tree (dimmed) so they can be selected and shown again. */
  setHidden: (hidden: Set<string>) => void;
  /** Lists only these parts (those a property filter found), or every part again with null. */
  setPropertyMatches: (matches: ReadonlySet<string> | null) => void;
  /** Compare mode: marks each part with its change, offers a filter by change and lists the removed parts; null ends it. */
  setChanges: (states: Map<string, PartDiffState> | null) => void;
}

/** Height of a row in CSS pixels; `.tree-row` in the style sheet has the same. */
export const TREE_ROW_HEIGHT = 28;
/** Rows kept in the DOM above and below the visible ones: a wheel's turn shows no blank, and the DOM stays small. */
const OVERSCAN_ROWS = 40;
/** Below this many parts the tree filters on each keystroke; above, once typing pauses for SEARCH_PAUSE_MS. */
const SEARCH_AT_ONCE_BELOW = 5_000;
const SEARCH_PAUSE_MS = 150;

/** A part as its row shows it. */
function entryOf(part: Part): TreeEntry {
  const detail = isPointCloud(part)
    ? `${formatCount(part.vertex_count)} pts`
    : `${formatCount(part.triangle_count)} tri`;
  return { group_id: part.group_id, name: part.name, path: part.path, detail };
}

/** The "Find part" field; `onSearch` runs on each keystroke in a small tree, once typing pauses in a big one. */
function createSearchField(
  partCount: () => number,
  onSearch: () => void,
): { field: HTMLElement; search: HTMLInputElement; matches: HTMLElement } {
  const searchId = uid('part-search');
  const search = h('input', {
    id: searchId,
    type: 'search',
    placeholder: 'Name or path',
    autocomplete: 'off',
  });
  const matches = h('small', { class: 'part-matches', 'aria-live': 'polite' });
  let pause: ReturnType<typeof setTimeout> | undefined;
  search.addEventListener('input', () => {
    clearTimeout(pause);
    if (partCount() < SEARCH_AT_ONCE_BELOW) onSearch();
    else pause = setTimeout(onSearch, SEARCH_PAUSE_MS);
  });
  const field = h(
    'div',
    { class: 'field part-search' },
    h('label', { for: searchId }, 'Find part'),
    search,
    matches,
  );
  return { field, search, matches };
}

/** The parts `found` by a search (every part when null) that `passes` lets through, flagged by part, and their count. */
function keptParts(
  index: TreeIndex,
  found: Uint8Array | null,
  passes: (groupId: string) => boolean,
): { keep: Uint8Array; count: number } {
  const keep = new Uint8Array(index.parts.length);
  let count = 0;
  for (let at = 0; at < keep.length; at++) {
    if ((found !== null && found[at] !== 1) || !passes(index.parts[at]!.group_id)) continue;
    keep[at] = 1;
    count += 1;
  }
  return { keep, count };
}

/** Builds the tree; `onSelect` gets the part's group id and whether Shift/Ctrl asked to add to the selection. */
export function createPartsTree(
  parts: Part[],
  onSelect: (groupId: string, additive: boolean) => void,
): PartsTree {
  const entries = parts.map(entryOf);
  let index: TreeIndex<TreeEntry> = buildTreeIndex(entries);
  let expanded = allExpanded(index);
  let shown: Uint8Array | null = null;
  let rows: TreeRows = layOutRows(index, expanded, shown);
  let selection = new Set<string>();
  let hidden = new Set<string>();
  let paint = new Map<string, Material>();
  let propertyMatches: ReadonlySet<string> | null = null;
  /** The node holding the focus stop (tabindex 0); the first row when it is not shown. */
  let activeNode = -1;
  const nodeOfRow = new WeakMap<Element, number>();

  const focusRow = (): number =>
    activeNode >= 0 && rows.rowOf[activeNode]! >= 0 ? rows.rowOf[activeNode]! : 0;
  const list = h('ul', {
    class: 'tree-rows',
    role: 'tree',
    'aria-label': 'Parts',
    'aria-multiselectable': 'true',
  });
  const virtual = createVirtualRows('parts-tree', {
    rowHeight: TREE_ROW_HEIGHT,
    overscan: OVERSCAN_ROWS,
    list,
    create: (node) => {
      const row = createRow(index.part[node] === -1);
      nodeOfRow.set(row, node);
      return row;
    },
    update: (row, at, node) => {
      const place = {
        level: index.level[node]!,
        posinset: rows.posinset[at]!,
        setsize: rows.setsize[at]!,
        active: at === focusRow(),
      };
      const part = index.part[node]!;
      if (part === -1) {
        updateFolderRow(row, { ...place, name: index.folderName[node]!, expanded: expanded[node] === 1 });
        return;
      }
      const entry = index.parts[part]!;
      const id = entry.group_id;
      const state = { selected: selection.has(id), hidden: hidden.has(id), material: paint.get(id) };
      updatePartRow(row, { ...place, entry, ...state });
      changes.mark(row.firstElementChild as HTMLElement, id);
    },
    pinned: () => (activeNode >= 0 ? rows.rowOf[activeNode]! : -1),
  });

  const relayout = (fresh = false): void => {
    rows = layOutRows(index, expanded, shown);
    virtual.setKeys(rows.nodes, fresh);
  };
  const refilter = (fresh = false): void => {
    const found = searchParts(index, search.value);
    if (found === null && propertyMatches === null && !changes.filtering()) {
      shown = null;
      matches.textContent = '';
    } else {
      const { keep, count } = keptParts(
        index,
        found,
        (id) => (propertyMatches === null || propertyMatches.has(id)) && changes.keeps(id),
      );
      shown = shownNodes(index, keep)!;
      expandShown(index, expanded, shown);
      matches.textContent = `${count} of ${index.parts.length} parts`;
    }
    relayout(fresh);
  };
  const changes = createTreeChangeFilter(() => refilter());

  listenToTreeInput(list, {
    nodeOf: (row) => nodeOfRow.get(row),
    state: () => ({ index, rows, expanded }),
    activeNode: () => activeNode,
    activate: (node) => (activeNode = node),
    focus: (node) => {
      activeNode = node;
      virtual.reveal(rows.rowOf[node]!);
      (virtual.elementOf(node)?.firstElementChild as HTMLElement | null)?.focus();
    },
    relayout: () => relayout(),
    refresh: virtual.refresh,
    pageRows: virtual.pageRows,
    onSelect,
  });

  const { field, search, matches } = createSearchField(
    () => index.parts.length,
    () => refilter(),
  );
  const empty = h('p', { hidden: parts.length > 0 }, 'This model has no parts.');
  virtual.setKeys(rows.nodes);
  const element = h(
    'div',
    { class: 'parts-browser' },
    parts.length > 0 ? field : null,
    changes.field,
    empty,
    virtual.element,
  );
  return {
    element,
    setPropertyMatches: (next) => {
      propertyMatches = next;
      refilter();
    },
    setChanges: (states) => {
      changes.set(states);
      const removed = changes
        .removed()
        .map(([id, entry]): TreeEntry => ({ group_id: id, name: entry.name, path: '', detail: 'removed' }));
      index = buildTreeIndex(entries, { label: `Removed (${removed.length})`, parts: removed });
      expanded = allExpanded(index);
      activeNode = -1;
      refilter(true);
    },
    setHidden: (next) => {
      hidden = next;
      virtual.refresh();
    },
    setSelection: (next) => {
      selection = next;
      let newest: string | undefined;
      for (const id of selection) newest = id;
      const node = newest === undefined ? undefined : index.nodeOf.get(newest);
      if (node === undefined || (shown !== null && shown[node] !== 1)) {
        virtual.refresh();
        return;
      }
      if (expandTo(index, expanded, node)) relayout();
      activeNode = node;
      virtual.reveal(rows.rowOf[node]!);
    },
    setMaterials: (next) => {
      paint = next;
      virtual.refresh();
    },
  };
}
