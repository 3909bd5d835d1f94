/**
 * The metadata form of the model details: name, description, tags and, for a file that states none, its unit and
 * up axis. Saving a changed unit or up axis converts the model again (or tells when it cannot yet).
 */
import { reprocessModel, updateModel } from '../api/catalog-api.ts';
import type { Model, ModelPatch } from '../api/types.ts';
import { h, uid } from '../ui/dom.ts';
import {
  DEFAULT_UNIT,
  DEFAULT_UP_AXIS,
  FRAME_HINT,
  frameSelect,
  takesDeclaredFrame,
  UNIT_CHOICES,
  UP_AXIS_CHOICES,
} from '../ui/frame-choices.ts';
import { attempt, notifyInfo } from '../ui/notify.ts';
import type { ModelDetailsHandlers } from './model-details.ts';

/** What the form works with: the model as shown now, and what to do with a saved one. */
export interface MetadataFormContext {
  current: () => Model;
  /** Shows a saved model in the whole details section. */
  show: (model: Model) => void;
  handlers: ModelDetailsHandlers;
}

/** Builds the metadata form of `model`, saving through the catalog API. */
export function createMetadataForm(
  initial: Model,
  { current, show, handlers }: MetadataFormContext,
): HTMLFormElement {
  const nameId = uid('model-name');
  const descriptionId = uid('model-description');
  const tagsId = uid('model-tags');
  const unitId = uid('model-unit');
  const upId = uid('model-up');
  const nameInput = h('input', {
    id: nameId,
    type: 'text',
    required: true,
    maxlength: 255,
    value: initial.name,
  });
  const descriptionInput = h(
    'textarea',
    { id: descriptionId, rows: 3, maxlength: 10000 },
    initial.description ?? '',
  );
  const tagsInput = h('input', {
    id: tagsId,
    type: 'text',
    value: initial.tags.join(', '),
    'aria-describedby': `${tagsId}-hint`,
  });
  // Offered only where the file states no frame: elsewhere the server uses the file's and ignores a declared one.
  const framed = takesDeclaredFrame(initial.format);
  const unitSelect = frameSelect(unitId, UNIT_CHOICES, initial.unit ?? DEFAULT_UNIT);
  const upSelect = frameSelect(upId, UP_AXIS_CHOICES, initial.up ?? DEFAULT_UP_AXIS);
  const form = h(
    'form',
    { class: 'details-form', 'aria-label': 'Model metadata' },
    h('div', { class: 'field' }, h('label', { for: nameId }, 'Name'), nameInput),
    h('div', { class: 'field' }, h('label', { for: descriptionId }, 'Description'), descriptionInput),
    h(
      'div',
      { class: 'field' },
      h('label', { for: tagsId }, 'Tags'),
      tagsInput,
      h('small', { id: `${tagsId}-hint` }, 'Separate tags with commas.'),
    ),
    framed && [
      h('div', { class: 'field' }, h('label', { for: unitId }, 'Unit'), unitSelect),
      h(
        'div',
        { class: 'field' },
        h('label', { for: upId }, 'Up axis'),
        upSelect,
        h('small', {}, `${FRAME_HINT} Changing either converts the model again.`),
      ),
    ],
    h('button', { type: 'submit', class: 'primary' }, 'Save details'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const model = current();
    const patch: ModelPatch = {};
    const name = nameInput.value.trim();
    const description = descriptionInput.value;
    const tags = tagsInput.value
      .split(',')
      .map((tag) => tag.trim())
      .filter(Boolean);
    if (name !== model.name) patch.name = name;
    if (description !== (model.description ?? '')) patch.description = description;
    if (tags.join('\n') !== model.tags.join('\n')) patch.tags = tags;
    const frame = framed ? changedFrame(model, unitSelect.value, upSelect.value) : {};
    Object.assign(patch, frame);
    if (Object.keys(patch).length === 0) {
      notifyInfo('Nothing changed.');
      return;
    }
    attempt('Saving details', async () => {
      const saved = await updateModel(model.id, patch);
      show(saved);
      handlers.onUpdated(saved);
      if (Object.keys(frame).length === 0) {
        notifyInfo('Details saved');
      } else if (saved.status === 'pending') {
        // A conversion that has not started yet reads the new values when it does.
        notifyInfo('Details saved; the waiting conversion uses the new unit and up axis');
      } else if (saved.status === 'processing') {
        notifyInfo('Details saved; reprocess once the current conversion ends to apply the unit and up axis');
      } else {
        const converting = await reprocessModel(model.id);
        notifyInfo('Details saved; converting the model again with the new unit and up axis');
        handlers.onReprocessing(converting);
      }
    });
  });

  return form;
}

/** The unit and up axis chosen in the form that differ from what the model has (null counting as the default). */
function changedFrame(model: Model, unit: string, up: string): Pick<ModelPatch, 'unit' | 'up'> {
  const patch: Pick<ModelPatch, 'unit' | 'up'> = {};
  if (unit !== (model.unit ?? DEFAULT_UNIT)) patch.unit = unit as ModelPatch['unit'];
  if (up !== (model.up ?? DEFAULT_UP_AXIS)) patch.up = up as ModelPatch['up'];
  return patch;
}
