/** The materials panel's binding box: binds the selected parts to the open material, or unbinds them. */
import { bindInConfiguration, unbindInConfiguration } from '../api/configurations-api.ts';
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
    const configuration = binding.configuration?.() ?? null;
    attempt('Binding parts', async () => {
      if (configuration) await bindInConfiguration(configuration, material.id, groupIds);
      else await bindGroups(material.id, groupIds);
      const where = configuration ? ' in the configuration shown' : '';
      notifyInfo(`Bound ${plural(groupIds.length)} to ${material.name}${where}`);
      onChanged({ groupIds });
    });
  };

  const unbind = (): void => {
    const configuration = binding.configuration?.() ?? null;
    if (configuration) {
      // The configuration forgets these parts, which show the model's bindings again.
      const groupIds = binding.selected();
      attempt('Unbinding parts', async () => {
        await unbindInConfiguration(configuration, groupIds);
        notifyInfo(`Removed ${plural(groupIds.length)} from the configuration shown`);
        onChanged({ groupIds });
      });
      return;
    }
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
      notifyInfo(`Unbound ${plural(unbound)}`);
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

/** `n part(s)`. */
function plural(count: number): string {
  return `${count} part${count === 1 ? '' : 's'}`;
}
