/** The create/edit form of a material: colour pickers for the colour triples, sliders for the scalars. */
import { MATERIAL_DEFAULTS } from '../../../src/materials/material-defaults.ts';
import type { Material, MaterialFields } from '../api/types.ts';
import { fromHex, toHex } from '../ui/color.ts';
import { h, uid } from '../ui/dom.ts';

/** Values of a new material: the service's own create defaults. */
export const NEW_MATERIAL: MaterialFields = { name: '', ...MATERIAL_DEFAULTS };

type ColorKey = 'diffuse' | 'specular' | 'ambient';
type ScalarKey = 'alpha' | 'shininess' | 'metallic' | 'roughness' | 'reflectance';

const COLORS: { key: ColorKey; label: string }[] = [
  { key: 'diffuse', label: 'Diffuse colour' },
  { key: 'specular', label: 'Specular colour' },
  { key: 'ambient', label: 'Ambient colour' },
];

/** Slider ranges; shininess has no upper bound, so its number box accepts more than the slider. */
const SCALARS: { key: ScalarKey; label: string; max: number; step: number; open?: boolean }[] = [
  { key: 'alpha', label: 'Alpha (opacity)', max: 255, step: 1 },
  { key: 'shininess', label: 'Shininess', max: 256, step: 1, open: true },
  { key: 'metallic', label: 'Metallic', max: 1, step: 0.01 },
  { key: 'roughness', label: 'Roughness', max: 1, step: 0.01 },
  { key: 'reflectance', label: 'Reflectance', max: 1, step: 0.01 },
];

/** What the form hands back on submit. */
export interface MaterialFormHandlers {
  /** Receives every field for a new material, only the changed ones for an existing one. */
  save: (fields: Partial<MaterialFields>) => Promise<void>;
  remove?: () => Promise<void>;
  cancel: () => void;
}

/** Builds the form for `material` (null: a new one). */
export function createMaterialForm(
  material: Material | null,
  handlers: MaterialFormHandlers,
): HTMLFormElement {
  const values: MaterialFields = { ...NEW_MATERIAL, ...(material ?? {}) };
  const dirty = new Set<keyof MaterialFields>();
  const nameId = uid('material-name');
  const nameInput = h('input', {
    id: nameId,
    type: 'text',
    required: true,
    maxlength: 255,
    value: values.name,
  });
  nameInput.addEventListener('input', () => {
    values.name = nameInput.value;
    dirty.add('name');
  });

  const colorFields = COLORS.map(({ key, label }) => {
    const id = uid(`material-${key}`);
    const input = h('input', {
      id,
      type: 'color',
      name: key,
      value: toHex(values[`${key}_r`], values[`${key}_g`], values[`${key}_b`]),
    });
    input.addEventListener('input', () => {
      const [r, g, b] = fromHex(input.value);
      values[`${key}_r`] = r;
      values[`${key}_g`] = g;
      values[`${key}_b`] = b;
      dirty.add(`${key}_r`).add(`${key}_g`).add(`${key}_b`);
    });
    return h('div', { class: 'field color-field' }, h('label', { for: id }, label), input);
  });

  const scalarFields = SCALARS.map(({ key, label, max, step, open }) => {
    const id = uid(`material-${key}`);
    const slider = h('input', { id, type: 'range', name: key, min: 0, max, step, value: values[key] });
    const box = h('input', {
      type: 'number',
      min: 0,
      max: open ? undefined : max,
      step: 'any',
      value: values[key],
      'aria-label': `${label} value`,
      class: 'number-box',
    });
    const set = (raw: string, from: 'slider' | 'box'): void => {
      const value = Number(raw);
      if (raw === '' || !Number.isFinite(value)) return;
      values[key] = value;
      dirty.add(key);
      if (from === 'slider') box.value = raw;
      else slider.value = raw;
    };
    slider.addEventListener('input', () => set(slider.value, 'slider'));
    box.addEventListener('input', () => set(box.value, 'box'));
    return h(
      'div',
      { class: 'field scalar-field' },
      h('label', { for: id }, label),
      h('div', { class: 'slider-row' }, slider, box),
    );
  });

  const error = h('p', { class: 'form-error', role: 'alert' });
  const saveButton = h(
    'button',
    { type: 'submit', class: 'primary' },
    material ? 'Save material' : 'Create material',
  );
  const form = h(
    'form',
    { class: 'material-form', 'aria-label': material ? `Edit material ${material.name}` : 'New material' },
    h('div', { class: 'field' }, h('label', { for: nameId }, 'Name'), nameInput),
    h('div', { class: 'color-row' }, colorFields),
    scalarFields,
    error,
    h(
      'div',
      { class: 'button-row' },
      saveButton,
      material && handlers.remove
        ? h('button', { type: 'button', class: 'danger', onclick: () => runRemove() }, 'Delete material')
        : null,
      h('button', { type: 'button', onclick: () => handlers.cancel() }, 'Close'),
    ),
  );

  const runRemove = (): void => {
    if (!material || !handlers.remove) return;
    if (!confirm(`Delete material “${material.name}”? Its bindings go with it.`)) return;
    error.textContent = '';
    handlers.remove().catch((reason: unknown) => {
      error.textContent = reason instanceof Error ? reason.message : String(reason);
    });
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (!nameInput.value.trim()) {
      error.textContent = 'A material needs a name.';
      nameInput.focus();
      return;
    }
    const fields: Partial<MaterialFields> = material
      ? Object.fromEntries([...dirty].map((key) => [key, values[key]]))
      : { ...values };
    if (fields.name !== undefined) fields.name = fields.name.trim();
    if (material && Object.keys(fields).length === 0) {
      error.textContent = 'Nothing changed.';
      return;
    }
    error.textContent = '';
    saveButton.disabled = true;
    handlers
      .save(fields)
      .then(() => dirty.clear())
      .catch((reason: unknown) => {
        error.textContent = reason instanceof Error ? reason.message : String(reason);
      })
      .finally(() => {
        saveButton.disabled = false;
      });
  });
  return form;
}
