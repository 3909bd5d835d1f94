/**
 * The share page's configurations, read-only: a "Configuration" picker that repaints the view with the chosen
 * one's materials over the present ones, and "View in AR" of the chosen configuration where the browser has AR.
 */
import type { Material } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { arLink, detectAr } from './ar-links.ts';
import {
  getSharedConfigurations,
  getSharedParts,
  sharedConfigurationFile,
  type SharedModel,
} from './shared-api.ts';

/** What the picker drives on the page. */
export interface ConfigurationPickerTarget {
  /** Where the picker's card goes. */
  sidebar: HTMLElement;
  /** Shows each part in its material (a part missing from the map in its own). */
  repaint(paint: Map<string, Material>): void;
}

/** Seconds to wait before asking again for a file still being made, when the server does not say. */
const DEFAULT_RETRY_SECONDS = 1;

/** Mounts the picker into the sidebar; nothing when the model has no configurations. */
export async function mountConfigurationPicker(
  base: string,
  model: SharedModel,
  target: ConfigurationPickerTarget,
): Promise<void> {
  const configurations = await getSharedConfigurations(base, model.id);
  if (configurations.length === 0) return;
  const ar = await detectAr();
  const select = h(
    'select',
    { id: 'share-configuration' },
    h('option', { value: '' }, 'Present materials'),
    ...configurations.map((configuration) => h('option', { value: configuration.id }, configuration.name)),
  );
  const description = h('p', { class: 'hint share-configuration-description' });
  const arSlot = h('div', { class: 'share-ar-slot' });
  const status = h('output', { class: 'hint', 'aria-live': 'polite' });
  let asked = 0;

  const choose = async (configurationId: string): Promise<void> => {
    const turn = ++asked;
    const configuration = configurations.find((candidate) => candidate.id === configurationId);
    description.textContent = configuration?.description ?? '';
    arSlot.replaceChildren();
    status.textContent = 'Painting…';
    const parts = await getSharedParts(base, model.id, configurationId || undefined);
    // A later choice wins over an earlier one still being read.
    if (turn !== asked) return;
    const paint = new Map<string, Material>();
    for (const part of parts) if (part.material) paint.set(part.group_id, part.material);
    target.repaint(paint);
    status.textContent = '';
    if (!configuration || ar === null) return;
    const files = {
      glb: sharedConfigurationFile(base, model.id, configuration.id, 'glb'),
      usdz: sharedConfigurationFile(base, model.id, configuration.id, 'usdz'),
      thumbnail: configuration.thumbnail_url ?? model.thumbnail_url,
      name: configuration.name,
    };
    status.textContent = 'Preparing AR…';
    // The file is made on first request: the link is offered once it is, so AR opens at the first tap.
    await whenMade(ar === 'quick-look' ? files.usdz : files.glb);
    if (turn !== asked) return;
    status.textContent = '';
    const link = arLink(ar, files);
    if (link) arSlot.replaceChildren(link);
  };
  select.addEventListener('change', () => {
    void choose(select.value).catch((error: unknown) => {
      status.textContent = error instanceof Error ? error.message : String(error);
    });
  });

  target.sidebar.prepend(
    h(
      'section',
      { class: 'card share-configurations' },
      h('h2', {}, 'Configurations'),
      h('label', { for: 'share-configuration' }, 'Configuration'),
      select,
      description,
      status,
      arSlot,
    ),
  );
}

/** Asks for a file until it is made (200), waiting as each 202 says; throws when it cannot be. */
async function whenMade(url: string): Promise<void> {
  for (;;) {
    const response = await fetch(url, { method: 'HEAD', credentials: 'omit', cache: 'no-store' });
    if (response.ok && response.status !== 202) return;
    if (response.status !== 202)
      throw new Error(`AR is not available (the server answered ${response.status}).`);
    const seconds = Number(response.headers.get('retry-after')) || DEFAULT_RETRY_SECONDS;
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }
}
