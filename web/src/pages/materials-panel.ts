/** Lists, creates and edits materials, and binds the selected parts to one of them. */
import type { ConfigurationRef } from '../api/configurations-api.ts';
import { createMaterial, deleteMaterial, listMaterials, updateMaterial } from '../api/materials-api.ts';
import type { Material } from '../api/types.ts';
import { toHex } from '../ui/color.ts';
import { h, replaceChildren, uid } from '../ui/dom.ts';
import { scrollToTop } from '../ui/keep-in-viewport.ts';
import { notifyError, notifyInfo } from '../ui/notify.ts';
import { createBindingBox } from './material-binding-box.ts';
import { createMaterialForm } from './material-form.ts';

const PAGE_SIZE = 10;

/** Binding needs to know the selected parts and what each is bound to now. */
export interface BindingContext {
  selected: () => string[];
  boundMaterialId: (groupId: string) => number | undefined;
  /** The configuration shown, which binds and unbinds write to instead of the model (null: the model). */
  configuration?: () => ConfigurationRef | null;
}

/**
 * What changed how bound parts look: the bindings of some parts, or a material (edited or deleted), which changes
 * every part bound to it; a new material changes none.
 */
export type MaterialsChange = { groupIds: string[] } | { materialId: number } | { created: true };

/** Options of {@link createMaterialsPanel}. */
export interface MaterialsPanelOptions {
  /** Absent on the materials page, where no parts are shown. */
  binding?: BindingContext;
  /** Runs after anything that can change how bound parts look. */
  onChanged: (change: MaterialsChange) => void;
}

/** The panel and the hook the model page calls when the part selection changes. */
export interface MaterialsPanel {
  element: HTMLElement;
  selectionChanged: () => void;
}

/** Builds the materials panel. */
export function createMaterialsPanel(options: MaterialsPanelOptions): MaterialsPanel {
  let page = 1;
  let total = 0;
  let nameFilter = '';
  let current: Material | null = null;
  let serial = 0;
  let searchTimer: ReturnType<typeof setTimeout> | undefined;

  const searchId = uid('material-search');
  const search = h('input', { id: searchId, type: 'search', placeholder: 'Name contains…' });
  const list = h('ul', { class: 'material-list', 'aria-label': 'Materials' });
  const pageLabel = h('span', { class: 'page-label' });
  const previous = h('button', { type: 'button', onclick: () => goTo(page - 1) }, 'Previous');
  const next = h('button', { type: 'button', onclick: () => goTo(page + 1) }, 'Next');
  const editor = h('div', { class: 'material-editor' });
  const bindingBox = options.binding && createBindingBox(options.binding, () => current, options.onChanged);
  const updateBinding = (): void => bindingBox?.update();

  const load = async (): Promise<void> => {
    const mine = ++serial;
    try {
      const result = await listMaterials({ page, page_size: PAGE_SIZE, name: nameFilter || undefined });
      if (mine !== serial) return;
      total = result.total;
      if (result.items.length === 0 && page > 1 && total > 0) {
        page = Math.max(1, Math.ceil(total / PAGE_SIZE));
        return load();
      }
      renderList(result.items);
    } catch (error) {
      if (mine === serial) notifyError(error, 'Loading materials');
    }
  };

  const renderList = (items: Material[]): void => {
    replaceChildren(
      list,
      items.length === 0
        ? h('li', { class: 'empty' }, nameFilter ? 'No material matches.' : 'No materials yet.')
        : null,
      items.map((material) => materialItem(material, current?.id === material.id, () => edit(material))),
    );
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    pageLabel.textContent = `Page ${page} of ${pages}`;
    previous.disabled = page <= 1;
    next.disabled = page >= pages;
  };

  const goTo = (target: number): void => {
    page = Math.max(1, target);
    void load();
  };

  const close = (): void => {
    current = null;
    editor.replaceChildren();
    updateBinding();
    void load();
  };

  /**
   * Opens `material` (null: a new one) in the editor under the toolbar. Opened by the person (`focusOn` 'name'),
   * the form is scrolled into sight and its name field focused; after a save it stays put with the focus on Save.
   */
  const edit = (material: Material | null, focusOn: 'name' | 'save' = 'name'): void => {
    current = material;
    const form = createMaterialForm(material, {
      save: async (fields) => {
        if (material) {
          const saved = await updateMaterial(material.id, fields);
          notifyInfo(`Saved material ${saved.name}`);
          edit(saved, 'save');
          options.onChanged({ materialId: saved.id });
        } else {
          const created = await createMaterial({ name: fields.name ?? '', ...fields });
          notifyInfo(`Created material ${created.name}`);
          edit(created, 'save');
          options.onChanged({ created: true });
        }
      },
      remove: material
        ? async () => {
            await deleteMaterial(material.id);
            notifyInfo(`Deleted material ${material.name}`);
            close();
            options.onChanged({ materialId: material.id });
          }
        : undefined,
      cancel: close,
    });
    editor.replaceChildren(h('h3', {}, material ? `Material #${material.id}` : 'New material'), form);
    updateBinding();
    void load();
    // After a save the form is rebuilt; keep the focus where the person was instead of dropping it.
    form
      .querySelector<HTMLElement>(focusOn === 'save' ? 'button[type=submit]' : 'input')
      ?.focus({ preventScroll: true });
    // In a long sidebar the form would otherwise open out of sight, as if the button did nothing.
    // Clear of the bind box, which sticks to the top while the panel scrolls.
    if (focusOn === 'name') scrollToTop(editor, bindingBox ? bindingBox.element.offsetHeight + 12 : 12);
  };

  search.addEventListener('input', () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => {
      nameFilter = search.value.trim();
      goTo(1);
    }, 300);
  });

  const element = h(
    'div',
    { class: 'materials-panel' },
    bindingBox?.element,
    h(
      'div',
      { class: 'material-toolbar' },
      h('div', { class: 'field grow' }, h('label', { for: searchId }, 'Find material'), search),
      h('button', { type: 'button', onclick: () => edit(null) }, 'New material'),
    ),
    // Right under the button that opens it, so the form appears where the person is looking.
    editor,
    list,
    h('nav', { class: 'pager', 'aria-label': 'Material pages' }, previous, pageLabel, next),
  );
  updateBinding();
  void load();
  return { element, selectionChanged: updateBinding };
}

/** A material of the list: a button with its colour, name and id, pressed when it is the one open. */
function materialItem(material: Material, open: boolean, onclick: () => void): HTMLElement {
  return h(
    'li',
    {},
    h(
      'button',
      {
        type: 'button',
        class: 'material-button',
        'aria-pressed': String(open),
        'data-material-id': material.id,
        onclick,
      },
      h('span', {
        class: 'swatch bound',
        'aria-hidden': 'true',
        style: `background:${toHex(material.diffuse_r, material.diffuse_g, material.diffuse_b)}`,
      }),
      h('span', { class: 'material-name' }, material.name),
      h('small', {}, `#${material.id}`),
    ),
  );
}
