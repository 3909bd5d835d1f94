/** The materials panel's binding box: binds the selected parts to the open material, or unbinds them. */
import { bindGroups, unbindGroups } from '../api/materials-api.ts';
import type { Material } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { attempt, notifyInfo } from '../ui/notify.ts';
import { bindingState } from './binding-state.ts';
import type { BindingContext, MaterialsChange } from './materials-panel.ts';

/** The box and the hook that shows the selection and the open material as they are now. */
export interface BindingBox {
  element: HTMLElement;
  update: () => void;
}

/** Builds the binding box; `current` is the material open in the editor, `onChanged` runs after a (un)bind. */
export function createBindingBox(
  binding: BindingContext,
  current: () => Material | null,
  onChanged: (change: MaterialsChange) => void,
): BindingBox {
  const selectionLabel = h('p', { class: 'selection-label', role: 'status' });
  const bindButton = h(
    'button',
    { type: 'button', class: 'primary', onclick: () => bind() },
    'Bind selected parts',
  );
  const unbindButton = h('button', { type: 'button', onclick: () => unbind() }, 'Unbind selected parts');

  const update = (): void => {
    const count = binding.selected().length;
    const state = bindingState(count, current()?.name ?? null);
    selectionLabel.textContent = state.hint;
    bindButton.disabled = !state.ready;
    bindButton.textContent = state.label;
    unbindButton.disabled = count === 0;
  };

  const bind = (): void => {
    const groupIds = binding.selected();
    const material = current();
    if (!material || groupIds.length === 0) return;
    attempt('Binding parts', async () => {
      await bindGroups(material.id, groupIds);
      notifyInfo(`Bound ${groupIds.length} part${groupIds.length === 1 ? '' : 's'} to ${material.name}`);
      onChanged({ groupIds });
    });
  };

  const unbind = (): void => {
    // Each part may be bound to a different material; unbind each from its own.
    const byMaterial = new Map<number, string[]>();
    for (const groupId of binding.selected()) {
      const materialId = binding.boundMaterialId(groupId);
      if (materialId === undefined || materialId < 0) continue;
      byMaterial.set(materialId, [...(byMaterial.get(materialId) ?? []), groupId]);
    }
    if (byMaterial.size === 0) {
      notifyInfo('None of the selected parts is bound to a material.');
      return;
    }
    attempt('Unbinding parts', async () => {
      let unbound = 0;
      for (const [materialId, groupIds] of byMaterial)
        unbound += (await unbindGroups(materialId, groupIds)).unbound.length;
      notifyInfo(`Unbound ${unbound} part${unbound === 1 ? '' : 's'}`);
      onChanged({ groupIds: [...byMaterial.values()].flat() });
    });
  };

  const element = h(
    'div',
    { class: 'binding-box' },
    selectionLabel,
    h('div', { class: 'button-row' }, bindButton, unbindButton),
  );
  return { element, update };
}
