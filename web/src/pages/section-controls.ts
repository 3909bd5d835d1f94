/**
 * One section plane per axis: a switch and a slider each, cutting the model away above the slider's position; and,
 * while a saved view's planes along no axis cut the model, a row that tells so and removes them.
 */
import { h, uid } from '../ui/dom.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { AXES, type Axis, type SectionPlaneValues } from '../viewer/section-planes.ts';

/** Slider steps across the model's extent. */
const STEPS = 1000;

/** Builds the section controls bound to `view`. */
export function createSectionControls(view: ModelViewport): HTMLElement {
  const rows = AXES.map((axis) => {
    const switchId = uid(`section-${axis}`);
    const sliderId = uid(`section-${axis}-at`);
    const enabled = h('input', { id: switchId, type: 'checkbox', 'data-section-axis': axis });
    const slider = h('input', {
      id: sliderId,
      type: 'range',
      min: 0,
      max: STEPS,
      step: 1,
      value: STEPS / 2,
      disabled: true,
      'data-section-at': axis,
    });
    const apply = (): void => {
      slider.disabled = !enabled.checked;
      view.sections.set(axis, enabled.checked ? Number(slider.value) / STEPS : null);
      view.sectionsChanged();
    };
    enabled.addEventListener('change', apply);
    slider.addEventListener('input', apply);
    return h(
      'div',
      { class: 'section-row' },
      enabled,
      h('label', { for: switchId }, `Cut ${axis.toUpperCase()}`),
      h('label', { for: sliderId, class: 'visually-hidden' }, `${axis.toUpperCase()} section position`),
      slider,
    );
  });
  return h('fieldset', { class: 'section-controls' }, h('legend', {}, 'Section'), rows, freePlanesRow(view));
}

/** The row shown while planes along no axis cut the model: how many, and a button that removes them. */
function freePlanesRow(view: ModelViewport): HTMLElement {
  const text = h('span', { 'data-free-sections-text': '' });
  const remove = h('button', { type: 'button' }, 'Remove');
  const row = h('div', { class: 'section-row', 'data-free-sections': '', hidden: true }, text, remove);
  remove.addEventListener('click', () => {
    view.sections.setFree([]);
    view.sectionsChanged();
    showFreePlanes(row, 0);
  });
  return row;
}

/** Shows or hides the row of planes along no axis. */
function showFreePlanes(row: HTMLElement | null, count: number): void {
  if (!row) return;
  row.hidden = count === 0;
  const text = row.querySelector('[data-free-sections-text]');
  if (text)
    text.textContent = `Cut by ${count === 1 ? 'a plane' : `${count} planes`} along no axis (saved view)`;
}

/**
 * Sets the controls built by {@link createSectionControls} to `fractions` (an axis left out is not cut) and cuts
 * `view` at exactly those fractions, finer than the slider's steps, and with the `free` planes along no axis, so a
 * saved view comes back as it was.
 */
export function restoreSections(
  controls: HTMLElement,
  view: ModelViewport,
  fractions: Partial<Record<Axis, number>>,
  free: readonly SectionPlaneValues[] = [],
): void {
  for (const axis of AXES) {
    const enabled = controls.querySelector<HTMLInputElement>(`[data-section-axis="${axis}"]`);
    const slider = controls.querySelector<HTMLInputElement>(`[data-section-at="${axis}"]`);
    const fraction = fractions[axis];
    if (enabled) enabled.checked = fraction !== undefined;
    if (slider) {
      slider.disabled = fraction === undefined;
      if (fraction !== undefined) slider.value = String(Math.round(fraction * STEPS));
    }
    view.sections.set(axis, fraction ?? null);
  }
  view.sections.setFree(free);
  view.sectionsChanged();
  showFreePlanes(controls.querySelector<HTMLElement>('[data-free-sections]'), view.sections.freeCount);
}
