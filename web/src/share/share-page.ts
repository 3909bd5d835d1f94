/**
 * The public page of a share link: one model's view with the read-only view tools, LODs, parts and bound
 * materials; in an embed, the view and its toolbar alone.
 */
import type { Material, Part } from '../api/types.ts';
import { createLodSwitcher, showLodCount } from '../pages/lod-switcher.ts';
import { createPartsTree } from '../parts-tree/parts-tree.ts';
import { h } from '../ui/dom.ts';
import { formatDrawn } from '../ui/format.ts';
import { createLevelLoader } from '../viewer/level-loader.ts';
import { askedLevel, openingLevel, openingWithTiles } from '../viewer/tiles-opening.ts';
import { prefetchTileset } from '../viewer/tileset-prefetch.ts';
import { nextSelection } from '../viewer/next-selection.ts';
import { WorkspaceViewport } from '../workspace/workspace-viewport.ts';
import {
  getSharedModel,
  getSharedParts,
  LinkGoneError,
  shareBasePath,
  type SharedModel,
} from './shared-api.ts';
import { mountSharedAnnotations } from './shared-annotations.ts';
import { mountConfigurationPicker } from './configuration-picker.ts';
import { createShareViewTools, type ShareViewTools } from './share-view-tools.ts';

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
    // The tiles' first frame waits on the tileset and its root tile: fetch them while the parts are read.
    if (model.status === 'completed' && model.tileset_url && askedLevel() === null) {
      void prefetchTileset(model.tileset_url);
    }
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
    selection = nextSelection(selection, groupId, additive);
    view.setSelection(selection);
    tree.setSelection(selection);
    tools.selectionChanged();
  };
  const view = new WorkspaceViewport(
    viewport,
    select,
    `3D view of ${model.name}. Drag to orbit, scroll to zoom, click a part to select it.`,
  );
  const tree = createPartsTree(parts, select);
  const tools = createShareViewTools(model, view, viewport, embed, {
    parts,
    selection: () => selection,
    onHidden: (hidden) => tree.setHidden(hidden),
    clearSelection: () => select(null, false),
  });
  const paint = new Map<string, Material>();
  for (const part of parts) if (part.material) paint.set(part.group_id, part.material);
  view.setPaint(paint);
  tree.setMaterials(paint);
  viewport.dataset.paint = String(paint.size);

  const byLevel = createLevelLoader(model.lods, {
    element: viewport,
    draw: (lod) => view.load(lod.url),
    onLoading: (lod) => {
      if (viewport.dataset.state === 'loading') triangles.textContent = `Loading LOD ${lod.level}…`;
    },
    onShown: (lod, shown, final) => {
      const drawn = formatDrawn(shown.triangles, shown.points);
      triangles.textContent = final
        ? `LOD ${lod.level}: ${drawn} shown`
        : `LOD ${lod.level}: ${drawn} shown, loading LOD 0…`;
      if (switcher && shown.points > 0) showLodCount(switcher, lod.level, drawn);
    },
    onError: (lod, error) => {
      if (error instanceof LinkGoneError) return showGone(root, error);
      triangles.textContent = `LOD ${lod.level} could not be shown.`;
    },
  });

  const levels = openingWithTiles(byLevel, model.lods, model.tileset_url, {
    view,
    element: viewport,
    onShown: ({ triangles: drawn }) => {
      triangles.textContent = `Streamed tiles: ${formatDrawn(drawn, 0)} in the first frame`;
    },
  });

  // A shared record carries no vertex count: a level of a model without triangles is worded once it is loaded.
  const switcher = embed
    ? null
    : createLodSwitcher(
        model.lods,
        // The level being opened to: choosing a coarser one while it loads stops there.
        openingLevel(model.lods),
        (level) => void byLevel.choose(level),
        model.triangle_count === 0 ? () => 'points' : undefined,
      );
  layOutSharePage(root, model, embed, {
    tools,
    switcher,
    triangles,
    tree: tree.element,
    partCount: parts.length,
    resetView: () => view.resetView(),
  });
  const sidebar = root.querySelector<HTMLElement>('.share-page .sidebar');
  if (model.annotations)
    void mountSharedAnnotations(base, model.id, {
      view,
      viewport,
      sidebar,
      select: (id) => select(id, false),
    });
  if (model.configurations && sidebar) {
    const repaint = (chosen: Map<string, Material>) => (view.setPaint(chosen), tree.setMaterials(chosen));
    void mountConfigurationPicker(base, model, { sidebar, repaint });
  }
  await levels.open();
}

/** What the page shows around its view, made by {@link mountSharePage}. */
interface SharePagePieces {
  tools: ShareViewTools;
  /** The LOD switcher; null in an embed. */
  switcher: HTMLElement | null;
  triangles: HTMLElement;
  tree: HTMLElement;
  partCount: number;
  resetView: () => void;
}

/**
 * Fills `root`: in an embed the stage (view and toolbar) and the model's name; else the heading, the view column
 * (LOD switcher and the selection's tools above the stage, the readout and the section planes below) and the parts.
 */
function layOutSharePage(
  root: HTMLElement,
  model: SharedModel,
  embed: boolean,
  pieces: SharePagePieces,
): void {
  const { tools } = pieces;
  if (embed) {
    root.replaceChildren(
      tools.stage,
      h(
        'a',
        { class: 'share-embed-title', href: location.pathname, target: '_blank', rel: 'noopener' },
        model.name,
      ),
    );
    return;
  }
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
          h(
            'div',
            { class: 'viewer-toolbar' },
            pieces.switcher,
            h(
              'div',
              { class: 'view-tools', role: 'toolbar', 'aria-label': 'View tools' },
              tools.visibility?.element,
            ),
          ),
          tools.stage,
          h(
            'div',
            { class: 'viewer-status' },
            pieces.triangles,
            h('button', { type: 'button', onclick: pieces.resetView }, 'Reset view'),
          ),
          h('div', { class: 'viewer-tools' }, tools.sections),
        ),
        h(
          'div',
          { class: 'sidebar' },
          h(
            'section',
            { class: 'card parts-section' },
            h('h2', {}, `Parts (${pieces.partCount})`),
            pieces.tree,
          ),
        ),
      ),
      h(
        'p',
        { class: 'hint' },
        'Shared with Vitrine. Drag to orbit, scroll to zoom, click a part to select it; Esc clears. ' +
          'Distance: click two parts. Angle: click three points, the corner second.',
      ),
    ),
  );
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
