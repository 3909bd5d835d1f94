/** The materials on their own page, for editing without opening a model. */
import type { Page } from '../router.ts';
import { h } from '../ui/dom.ts';
import { createMaterialsPanel } from './materials-panel.ts';

/** Mounts the materials page. */
export const materialsPage: Page = (outlet) => {
  const panel = createMaterialsPanel({ onChanged: () => undefined });
  outlet.append(
    h(
      'section',
      { class: 'materials-page card' },
      h('h1', {}, 'Materials'),
      h('p', {}, 'Open a model to bind its parts to these materials.'),
      panel.element,
    ),
  );
  return () => undefined;
};
