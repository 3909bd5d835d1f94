/** Radio buttons choosing the level of detail, each showing its triangle count and download size. */
import type { Lod } from '../api/types.ts';
import { h, uid } from '../ui/dom.ts';
import { formatBytes, formatCount } from '../ui/format.ts';

/** Builds the switcher with `initial` checked; `onChange` receives the chosen level. */
export function createLodSwitcher(lods: Lod[], initial: number, onChange: (lod: Lod) => void): HTMLElement {
  const name = uid('lod');
  const fieldset = h('fieldset', { class: 'lod-switcher' }, h('legend', {}, 'Level of detail'));
  for (const lod of [...lods].sort((a, b) => a.level - b.level)) {
    const id = `${name}-${lod.level}`;
    const radio = h('input', { type: 'radio', id, name, value: lod.level, checked: lod.level === initial });
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
          h('span', {}, `${formatCount(lod.triangle_count)} triangles · ${formatBytes(lod.size)}`),
        ),
      ),
    );
  }
  return fieldset;
}
