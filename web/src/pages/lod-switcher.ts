/**
 * Radio buttons choosing the level of detail, each showing what it draws (triangles or points) and its size. A
 * level that could not be reduced is a copy of the one before it: it gets no button of its own but is named on
 * the level it equals.
 */
import type { Lod } from '../api/types.ts';
import { h, uid } from '../ui/dom.ts';
import { formatBytes, formatCount } from '../ui/format.ts';
import { foldedLevels, servedLevels } from '../viewer/served-levels.ts';

/** Words for what a level draws; the default is its triangle count. */
export type DescribeLod = (lod: Lod) => string;

const describeTriangles: DescribeLod = (lod) => `${formatCount(lod.triangle_count)} triangles`;

/** The switcher's entry for a model streamed as tiles: whether it starts checked, and what choosing it does. */
export interface StreamedEntry {
  checked: boolean;
  choose: () => void;
}

/** The value of the Streamed entry's radio; the levels' radios carry their level number. */
const STREAMED = 'tiles';

/**
 * Builds the switcher with `initial` checked; `onChange` receives the chosen level. `describe` words what each
 * level draws (a point cloud's levels count points, which the catalog lists only for the model as a whole).
 * A model with tiles gets a first entry, Streamed (`streamed`), from which the person can go to a level and back.
 */
export function createLodSwitcher(
  lods: Lod[],
  initial: number,
  onChange: (lod: Lod) => void,
  describe: DescribeLod = describeTriangles,
  streamed?: StreamedEntry,
): HTMLElement {
  const name = uid('lod');
  const fieldset = h('fieldset', { class: 'lod-switcher' }, h('legend', {}, 'Level of detail'));
  if (streamed) {
    const id = `${name}-${STREAMED}`;
    const radio = h('input', { type: 'radio', id, name, value: STREAMED, checked: streamed.checked });
    radio.addEventListener('change', () => {
      if (radio.checked) streamed.choose();
    });
    fieldset.append(
      h(
        'div',
        { class: 'lod-option lod-streamed' },
        radio,
        h(
          'label',
          { for: id },
          h('strong', {}, 'Streamed'),
          h('span', { class: 'streaming-state', 'aria-live': 'polite' }, 'tiles as needed'),
        ),
      ),
    );
  }
  const folded = foldedLevels(lods);
  for (const lod of servedLevels(lods)) {
    const copies = folded.get(lod.level) ?? [];
    const id = `${name}-${lod.level}`;
    const radio = h('input', {
      type: 'radio',
      id,
      name,
      value: lod.level,
      checked: !streamed?.checked && lod.level === initial,
    });
    radio.addEventListener('change', () => {
      if (radio.checked) onChange(lod);
    });
    fieldset.append(
      h(
        'div',
        { class: 'lod-option' },
        radio,
        h(
          'label',
          { for: id },
          h('strong', {}, `LOD ${lod.level}`),
          h(
            'span',
            {},
            h('span', { 'data-lod-count': lod.level }, describe(lod)),
            ` · ${formatBytes(lod.size)}`,
          ),
          copies.length > 0
            ? h(
                'span',
                { class: 'lod-same' },
                `also ${copies.map((copy) => `LOD ${copy.level}`).join(', ')} (not reduced)`,
              )
            : null,
        ),
      ),
    );
  }
  return fieldset;
}

/** Rewrites what level `level` draws in a switcher, once the view has counted it. */
export function showLodCount(switcher: HTMLElement, level: number, text: string): void {
  const label = switcher.querySelector(`[data-lod-count="${level}"]`);
  if (label) label.textContent = text;
}

/** Marks the Streamed entry while tiles are on their way (`streaming`), and the entry's state once they are in. */
export function showStreaming(switcher: HTMLElement, streaming: boolean): void {
  const state = switcher.querySelector<HTMLElement>('.streaming-state');
  if (!state) return;
  const text = streaming ? 'streaming tiles…' : 'tiles as needed';
  if (state.textContent !== text) state.textContent = text;
  switcher.querySelector('.lod-streamed')?.classList.toggle('streaming', streaming);
}

/** The level checked in a switcher (Streamed counts as LOD 0, the detail it streams), or null when none is. */
export function checkedLevel(switcher: HTMLElement): number | null {
  const radio = switcher.querySelector<HTMLInputElement>('input[type="radio"]:checked');
  if (!radio) return null;
  return radio.value === STREAMED ? 0 : Number(radio.value);
}

/**
 * Checks the button of `level` as a click would, so the view loads it; a level folded into another (not reduced)
 * checks the one it equals. Returns false when the switcher offers no such level.
 */
export function chooseLevel(switcher: HTMLElement, level: number): boolean {
  // Streamed tiles already show the finest level.
  if (level === 0 && checkedLevel(switcher) === 0) return true;
  const radios = Array.from(
    switcher.querySelectorAll<HTMLInputElement>(`input[type="radio"]:not([value="${STREAMED}"])`),
  );
  // Served levels are listed finest first; a folded level equals the nearest served one below its number.
  const radio = radios.filter((entry) => Number(entry.value) <= level).at(-1) ?? radios[0];
  if (!radio) return false;
  if (!radio.checked) radio.click();
  return true;
}
