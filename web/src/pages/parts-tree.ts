/** The parts of a model as a tree following their node paths, selectable like the view. */
import type { Material, Part } from '../api/types.ts';
import { toHex } from '../ui/color.ts';
import { h } from '../ui/dom.ts';
import { formatCount } from '../ui/format.ts';

/** The rendered tree and the updates the model page pushes into it. */
export interface PartsTree {
  element: HTMLElement;
  setSelection: (selection: Set<string>) => void;
  setMaterials: (paint: Map<string, Material>) => void;
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
      h('small', {}, `${formatCount(part.triangle_count)} tri`),
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

  const element = h(
    'div',
    { class: 'parts-tree' },
    parts.length === 0 ? h('p', {}, 'This model has no parts.') : folderList(root),
  );
  return {
    element,
    setSelection: (selection) => {
      for (const [groupId, button] of buttons)
        button.setAttribute('aria-pressed', String(selection.has(groupId)));
      const first = [...selection].map((id) => buttons.get(id)).find(Boolean);
      if (first) revealInside(element, first);
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
