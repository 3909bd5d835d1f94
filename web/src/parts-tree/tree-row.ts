/**
 * One row of the parts tree: a `treeitem` holding a button, a folder's (which opens and closes it) or a part's
 * (which selects it, with its material's swatch, its name and its size). Rows are made when they scroll in and
 * updated in place, so a row shows whatever the tree's state says of its node now.
 */
import type { Material } from '../api/types.ts';
import { toHex } from '../ui/color.ts';
import { h } from '../ui/dom.ts';

/** A part as a row shows it: the catalog's part, or a removed part of a compared version. */
export interface TreeEntry {
  group_id: string;
  name: string;
  path: string;
  /** The size shown after the name ("1,204 tri", "5,000 pts", "removed"). */
  detail: string;
}

/** What a row needs to know of the tree's state to draw its node. */
export interface RowState {
  level: number;
  posinset: number;
  setsize: number;
  /** Whether the row holds the focus stop (tabindex 0). */
  active: boolean;
}

/** A folder's row state: also its name, whether it is open, and its parts shown. */
export interface FolderRowState extends RowState {
  name: string;
  expanded: boolean;
}

/** A part's row state: also whether it is selected and hidden, and its bound material. */
export interface PartRowState extends RowState {
  entry: TreeEntry;
  selected: boolean;
  hidden: boolean;
  material: Material | undefined;
}

/** Makes the empty row of a folder (`folder`) or a part; {@link updateFolderRow}/{@link updatePartRow} fill it. */
export function createRow(folder: boolean): HTMLElement {
  const button = folder
    ? h(
        'button',
        { type: 'button', class: 'folder-toggle', tabindex: -1 },
        h('span', { class: 'twisty', 'aria-hidden': 'true' }),
        h('span', { class: 'folder-name' }),
      )
    : h(
        'button',
        { type: 'button', class: 'part-button', tabindex: -1, 'aria-pressed': 'false' },
        h('span', { class: 'swatch', 'aria-hidden': 'true' }),
        h('span', { class: 'part-name' }),
        h('small', {}),
      );
  return h('li', { role: 'treeitem', class: folder ? 'tree-row tree-folder' : 'tree-row' }, button);
}

/** Sets what every row carries: its place in the tree for assistive technology, its indent, its focus stop. */
function placeRow(row: HTMLElement, state: RowState): HTMLButtonElement {
  row.setAttribute('aria-level', String(state.level));
  row.setAttribute('aria-posinset', String(state.posinset));
  row.setAttribute('aria-setsize', String(state.setsize));
  row.style.setProperty('--level', String(state.level - 1));
  const button = row.firstElementChild as HTMLButtonElement;
  button.tabIndex = state.active ? 0 : -1;
  return button;
}

/** Shows a folder's name and whether it is open. */
export function updateFolderRow(row: HTMLElement, state: FolderRowState): void {
  const button = placeRow(row, state);
  row.setAttribute('aria-expanded', String(state.expanded));
  setText(button.children[0]!, state.expanded ? '▾' : '▸');
  setText(button.children[1]!, state.name || '(unnamed)');
}

/** Shows a part: name, size, selection, hidden mark and the swatch of its bound material. */
export function updatePartRow(row: HTMLElement, state: PartRowState): void {
  const button = placeRow(row, state);
  const { entry, material } = state;
  row.setAttribute('aria-selected', String(state.selected));
  button.dataset.groupId = entry.group_id;
  button.setAttribute('aria-pressed', String(state.selected));
  button.classList.toggle('hidden-part', state.hidden);
  const [swatch, name, detail] = Array.from(button.children) as HTMLElement[];
  setText(name!, entry.name || '(unnamed)');
  setText(detail!, entry.detail);
  swatch!.style.background = material
    ? toHex(material.diffuse_r, material.diffuse_g, material.diffuse_b)
    : 'transparent';
  swatch!.title = material ? `Material: ${material.name}` : 'Own material';
  swatch!.classList.toggle('bound', Boolean(material));
}

/** Sets an element's text only when it differs, sparing the layout a change that is none. */
function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}
