/** The parts of a model as a tree following their node paths, selectable like the view. */
import type { Material, Part } from '../api/types.ts';
import { searchFold } from '../../../src/db/search-fold.ts';
import { toHex } from '../ui/color.ts';
import { h, uid } from '../ui/dom.ts';
import { formatCount, isPointCloud } from '../ui/format.ts';
import type { PartDiffState } from '../viewer/diff-colors.ts';
import { createTreeChangeFilter } from './parts-tree-changes.ts';

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

interface Folder {
  name: string;
  folders: Map<string, Folder>;
  parts: Part[];
}

/** Builds the tree; `onSelect` gets the part's group id and whether Shift/Ctrl asked to add to the selection. */
export function createPartsTree(
  parts: Part[],
  onSelect: (groupId: string, additive: boolean) => void,
): PartsTree {
  const root: Folder = { name: '', folders: new Map(), parts: [] };
  for (const part of parts) {
    let folder = root;
    for (const segment of part.path ? part.path.split('/') : []) {
      let child = folder.folders.get(segment);
      if (!child) {
        child = { name: segment, folders: new Map(), parts: [] };
        folder.folders.set(segment, child);
      }
      folder = child;
    }
    folder.parts.push(part);
  }

  const buttons = new Map<string, HTMLButtonElement>();
  const swatches = new Map<string, HTMLElement>();
  const partItem = (part: Part): HTMLElement => {
    const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
    const button = h(
      'button',
      {
        type: 'button',
        class: 'part-button',
        'aria-pressed': 'false',
        'data-group-id': part.group_id,
        title: part.group_id,
        onclick: (event: Event) => {
          const mouse = event as MouseEvent;
          onSelect(part.group_id, mouse.shiftKey || mouse.ctrlKey || mouse.metaKey);
        },
        onkeydown: (event: Event) => {
          const key = event as KeyboardEvent;
          // Keyboard activation carries no modifiers into the click, so Shift/Ctrl+Enter is handled here.
          if ((key.key === 'Enter' || key.key === ' ') && (key.shiftKey || key.ctrlKey || key.metaKey)) {
            key.preventDefault();
            onSelect(part.group_id, true);
          }
        },
      },
      swatch,
      h('span', { class: 'part-name' }, part.name || '(unnamed)'),
      h(
        'small',
        {},
        isPointCloud(part)
          ? `${formatCount(part.vertex_count)} pts`
          : `${formatCount(part.triangle_count)} tri`,
      ),
    );
    buttons.set(part.group_id, button);
    swatches.set(part.group_id, swatch);
    return h('li', {}, button);
  };
  const folderList = (folder: Folder): HTMLElement =>
    h(
      'ul',
      { class: 'tree-level' },
      [...folder.folders.values()].map((child) =>
        h(
          'li',
          {},
          h('details', { open: true }, h('summary', {}, child.name || '(unnamed)'), folderList(child)),
        ),
      ),
      folder.parts.map(partItem),
    );

  let propertyMatches: ReadonlySet<string> | null = null;
  const refilter = () => filterTree(box, search.value, changes.keeps, propertyMatches, matches);
  const changes = createTreeChangeFilter(refilter, onSelect);
  const box = h(
    'div',
    { class: 'parts-tree' },
    parts.length === 0 ? h('p', {}, 'This model has no parts.') : folderList(root),
    changes.removedList,
  );
  const searchId = uid('part-search');
  const search = h('input', {
    id: searchId,
    type: 'search',
    placeholder: 'Name or path',
    autocomplete: 'off',
  });
  const matches = h('small', { class: 'part-matches', 'aria-live': 'polite' });
  search.addEventListener('input', refilter);
  const element = h(
    'div',
    { class: 'parts-browser' },
    parts.length > 0
      ? h('div', { class: 'field part-search' }, h('label', { for: searchId }, 'Find part'), search, matches)
      : null,
    changes.field,
    box,
  );
  return {
    element,
    setPropertyMatches: (next) => {
      propertyMatches = next;
      refilter();
    },
    setChanges: (states) => {
      changes.set(states, buttons);
      refilter();
    },
    setHidden: (hidden) => {
      for (const [groupId, button] of buttons) button.classList.toggle('hidden-part', hidden.has(groupId));
    },
    setSelection: (selection) => {
      for (const button of Array.from(box.querySelectorAll<HTMLElement>('.part-button')))
        button.setAttribute('aria-pressed', String(selection.has(button.dataset.groupId ?? '')));
      const first = [...selection].map((id) => buttons.get(id)).find(Boolean);
      if (first) revealInside(box, first);
    },
    setMaterials: (paint) => {
      for (const [groupId, swatch] of swatches) {
        const material = paint.get(groupId);
        swatch.style.background = material
          ? toHex(material.diffuse_r, material.diffuse_g, material.diffuse_b)
          : 'transparent';
        swatch.title = material ? `Material: ${material.name}` : 'Own material';
        swatch.classList.toggle('bound', Boolean(material));
      }
    },
  };
}

/** Scrolls only the tree's own box to show `item`; scrollIntoView would also move the page away from the view. */
function revealInside(box: HTMLElement, item: HTMLElement): void {
  const top = item.offsetTop;
  const bottom = top + item.offsetHeight;
  if (top < box.scrollTop) box.scrollTop = top;
  else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
}

/**
 * Shows only the parts whose name or folder path contains `text` (case- and accent-insensitive, as the parts'
 * `q=` compares) and, when a property filter
 * is on, that it found; the folders leading to them are opened. An empty text and no filter show everything again.
 */
function filterTree(
  box: HTMLElement,
  text: string,
  keeps: (groupId: string) => boolean,
  propertyMatches: ReadonlySet<string> | null,
  matches: HTMLElement,
): void {
  const wanted = searchFold(text.trim());
  const items = Array.from(box.querySelectorAll<HTMLElement>('li:has(> .part-button)'));
  const changing = items.some(
    (item) => !keeps(item.querySelector<HTMLElement>('.part-button')?.dataset.groupId ?? ''),
  );
  const filtering = Boolean(wanted) || propertyMatches !== null || changing;
  let shown = 0;
  for (const item of items) {
    const button = item.querySelector<HTMLElement>('.part-button');
    const groupId = button?.dataset.groupId ?? '';
    const path = folderPath(item, box);
    const name = button?.querySelector('.part-name')?.textContent ?? '';
    const hit =
      (!wanted || searchFold(`${path}/${name}`).includes(wanted)) &&
      (propertyMatches === null || propertyMatches.has(groupId)) &&
      keeps(groupId);
    item.hidden = !hit;
    if (hit) shown += 1;
  }
  // A folder stays when something under it does; bottom-up, so nested folders are settled before their parents.
  for (const folder of Array.from(box.querySelectorAll<HTMLElement>('li:has(> details)')).reverse()) {
    const any = folder.querySelector('li:has(> .part-button):not([hidden])') !== null;
    folder.hidden = !any;
    if (any && filtering) folder.querySelector('details')?.setAttribute('open', '');
  }
  matches.textContent = filtering ? `${shown} of ${items.length} parts` : '';
}

/** The folder names from the tree's top down to `item`, joined by "/". */
function folderPath(item: HTMLElement, box: HTMLElement): string {
  const names: string[] = [];
  for (let node = item.parentElement; node && node !== box; node = node.parentElement) {
    if (node.tagName === 'DETAILS') names.unshift(node.querySelector(':scope > summary')?.textContent ?? '');
  }
  return names.join('/');
}
