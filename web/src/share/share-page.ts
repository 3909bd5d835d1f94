/** The public page of a share link: one model's view, LODs, parts and bound materials; bare in an embed. */
import type { Lod, Material, Part } from '../api/types.ts';
import { createLodSwitcher, showLodCount } from '../pages/lod-switcher.ts';
import { createPartsTree } from '../pages/parts-tree.ts';
import { h } from '../ui/dom.ts';
import { formatDrawn } from '../ui/format.ts';
import { ModelViewport } from '../viewer/model-viewport.ts';
import { nextSelection } from '../viewer/next-selection.ts';
import {
  getSharedModel,
  getSharedParts,
  LinkGoneError,
  shareBasePath,
  type SharedModel,
} from './shared-api.ts';

/** Fills `root` with the shared model; `embed` shows the view alone, filling the frame. */
export async function mountSharePage(root: HTMLElement, embed: boolean): Promise<void> {
  root.classList.toggle('share-embed', embed);
  const status = h('p', { class: 'share-status', role: 'status' }, 'Loading…');
  root.replaceChildren(status);
  let model: SharedModel;
  let parts: Part[];
  let base: string;
  try {
    base = shareBasePath();
    model = await getSharedModel(base);
    parts = model.status === 'completed' ? await getSharedParts(base, model.id) : [];
  } catch (error) {
    showGone(root, error);
    return;
  }
  document.title = `${model.name} · Vitrine`;
  if (model.status !== 'completed' || model.lods.length === 0) {
    status.textContent =
      model.status === 'failed'
        ? 'This model could not be converted.'
        : 'This model is still being converted. Reload the page in a moment.';
    return;
  }

  let selection = new Set<string>();
  const viewport = h('div', { class: 'viewer share-viewer', 'data-state': 'loading' });
  const triangles = h('output', { class: 'triangle-count', 'aria-live': 'polite' });
  const select = (groupId: string | null, additive: boolean): void => {
    if (embed) return;
    selection = nextSelection(selection, groupId, additive);
    view.setSelection(selection);
    tree.setSelection(selection);
  };
  const view = new ModelViewport(
    viewport,
    select,
    `3D view of ${model.name}. Drag to orbit, scroll to zoom.`,
  );
  const tree = createPartsTree(parts, select);
  const paint = new Map<string, Material>();
  for (const part of parts) if (part.material) paint.set(part.group_id, part.material);
  view.setPaint(paint);
  tree.setMaterials(paint);
  viewport.dataset.paint = String(paint.size);

  const loadLevel = async (lod: Lod): Promise<void> => {
    viewport.dataset.state = 'loading';
    triangles.textContent = `Loading LOD ${lod.level}…`;
    try {
      const shown = await view.load(lod.url);
      viewport.dataset.state = 'ready';
      viewport.dataset.lod = String(lod.level);
      triangles.textContent = `LOD ${lod.level}: ${formatDrawn(shown.triangles, shown.points)} shown`;
      if (shown.points > 0 && switcher)
        showLodCount(switcher, lod.level, formatDrawn(shown.triangles, shown.points));
    } catch (error) {
      viewport.dataset.state = 'error';
      if (error instanceof LinkGoneError) return showGone(root, error);
      triangles.textContent = `LOD ${lod.level} could not be shown.`;
    }
  };

  const levels = [...model.lods].sort((a, b) => a.level - b.level);
  // A shared record carries no vertex count: a level of a model without triangles is worded once it is loaded.
  const switcher = embed
    ? null
    : createLodSwitcher(
        levels,
        levels[0]!.level,
        (level) => void loadLevel(level),
        model.triangle_count === 0 ? () => 'points' : undefined,
      );
  if (embed) {
    root.replaceChildren(
      viewport,
      h(
        'a',
        { class: 'share-embed-title', href: location.pathname, target: '_blank', rel: 'noopener' },
        model.name,
      ),
    );
  } else {
    root.replaceChildren(
      h(
        'main',
        { class: 'share-page' },
        h('header', { class: 'page-heading' }, h('h1', {}, model.name)),
        model.description ? h('p', { class: 'share-description' }, model.description) : null,
        h(
          'div',
          { class: 'model-layout' },
          h(
            'div',
            { class: 'viewer-column' },
            h('div', { class: 'viewer-toolbar' }, switcher),
            viewport,
            h(
              'div',
              { class: 'viewer-status' },
              triangles,
              h('button', { type: 'button', onclick: () => view.resetView() }, 'Reset view'),
            ),
          ),
          h(
            'div',
            { class: 'sidebar' },
            h(
              'section',
              { class: 'card parts-section' },
              h('h2', {}, `Parts (${parts.length})`),
              tree.element,
            ),
          ),
        ),
        h(
          'p',
          { class: 'hint' },
          'Shared with Vitrine. Drag to orbit, scroll to zoom, click a part to select it.',
        ),
      ),
    );
  }
  await loadLevel(levels[0]!);
}

function showGone(root: HTMLElement, error: unknown): void {
  document.title = 'Link not available · Vitrine';
  root.replaceChildren(
    h(
      'section',
      { class: 'card share-gone' },
      h(
        'h1',
        {},
        error instanceof LinkGoneError ? 'This link is not available' : 'This model cannot be shown',
      ),
      h(
        'p',
        {},
        error instanceof LinkGoneError
          ? 'It was revoked, or never existed. Ask whoever sent it for a new one.'
          : error instanceof Error
            ? error.message
            : String(error),
      ),
    ),
  );
}
