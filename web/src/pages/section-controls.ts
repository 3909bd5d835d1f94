/** One section plane per axis: a switch and a slider each, cutting the model away above the slider's position. */
import { h, uid } from '../ui/dom.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { AXES, type Axis } from '../viewer/section-planes.ts';

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
      view.setSection(axis, enabled.checked ? Number(slider.value) / STEPS : null);
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
  return h('fieldset', { class: 'section-controls' }, h('legend', {}, 'Section'), rows);
}

/**
 * Sets the controls built by {@link createSectionControls} to `fractions` (an axis left out is not cut) and cuts
 * `view` at exactly those fractions, finer than the slider's steps, so a saved view comes back as it was.
 */
export function restoreSections(
  controls: HTMLElement,
  view: ModelViewport,
  fractions: Partial<Record<Axis, number>>,
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
    view.setSection(axis, fraction ?? null);
  }
}
