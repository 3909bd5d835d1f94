/** The parts tree's clicks and keys, listened for once on its list rather than on each row as rows come and go. */
import type { TreeIndex } from './tree-index.ts';
import { treeKeyAction, type TreeRows } from './tree-rows.ts';

/** What the listeners read of the tree and ask of it. */
export interface TreeInputContext {
  /** The node a row element shows. */
  nodeOf: (row: Element) => number | undefined;
  /** The tree as it is now (the index, the rows and the open folders change). */
  state: () => { index: TreeIndex; rows: TreeRows; expanded: Uint8Array };
  /** The node holding the focus stop. */
  activeNode: () => number;
  /** Makes `node` the focus stop without moving the focus. */
  activate: (node: number) => void;
  /** Moves the focus to `node`'s row, scrolling it into the box. */
  focus: (node: number) => void;
  /** Lays the rows out again after a folder opened or closed. */
  relayout: () => void;
  /** Redraws the rows in the DOM. */
  refresh: () => void;
  /** Rows in a page, for Page Up/Down. */
  pageRows: () => number;
  onSelect: (groupId: string, additive: boolean) => void;
}

/** Listens on `list` for clicks (select a part, open or close a folder), the tree's keys and the focus. */
export function listenToTreeInput(list: HTMLElement, context: TreeInputContext): void {
  const nodeAt = (event: Event): number | undefined => {
    const row = (event.target as Element).closest('.tree-row');
    return row ? context.nodeOf(row) : undefined;
  };
  list.addEventListener('click', (event) => {
    const node = nodeAt(event);
    if (node === undefined) return;
    const { index, expanded } = context.state();
    context.activate(node);
    const part = index.part[node]!;
    if (part === -1) {
      expanded[node] = expanded[node] === 1 ? 0 : 1;
      context.relayout();
      return;
    }
    context.onSelect(index.parts[part]!.group_id, event.shiftKey || event.ctrlKey || event.metaKey);
    context.refresh();
  });
  list.addEventListener('keydown', (event) => {
    const node = nodeAt(event);
    if (node === undefined) return;
    const { index, rows, expanded } = context.state();
    const part = index.part[node]!;
    // Keyboard activation carries no modifiers into the click, so Shift/Ctrl+Enter is handled here.
    const additive = event.shiftKey || event.ctrlKey || event.metaKey;
    if (part >= 0 && (event.key === 'Enter' || event.key === ' ') && additive) {
      event.preventDefault();
      context.onSelect(index.parts[part]!.group_id, true);
      return;
    }
    const action = treeKeyAction(index, rows, expanded, rows.rowOf[node]!, event.key, context.pageRows());
    if (!action) return;
    event.preventDefault();
    if (action.kind === 'focus') {
      context.focus(rows.nodes[action.row]!);
      return;
    }
    expanded[action.node] = action.kind === 'expand' ? 1 : 0;
    context.relayout();
  });
  list.addEventListener('focusin', (event) => {
    const node = nodeAt(event);
    if (node === undefined || node === context.activeNode()) return;
    context.activate(node);
    context.refresh();
  });
}
