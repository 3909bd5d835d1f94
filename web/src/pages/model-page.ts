/** One model: conversion state until ready, then the 3D view with LODs, parts, materials and details. */
import { getLods, getModel, getParts } from '../api/catalog-api.ts';
import type { Lod, Model, Part } from '../api/types.ts';
import { navigate } from '../router.ts';
import { createSharePanel } from '../share/share-panel.ts';
import type { Page } from '../router.ts';
import { h } from '../ui/dom.ts';
import { attempt } from '../ui/notify.ts';
import { statusBadge } from '../ui/status-badge.ts';
import { prefetchTileset } from '../viewer/tileset-prefetch.ts';
import { askedLevel } from '../viewer/tiles-opening.ts';
import { catalogHash, emptyQuery } from './catalog-query.ts';
import { followConversion } from './conversion-status.ts';
import { createDownloads } from './downloads-card.ts';
import { createExportMenu } from './export-menu.ts';
import { createModelDetails } from './model-details.ts';
import { mountModelWorkspace } from './model-workspace.ts';
import { createWorkspaceView } from './workspace-view.ts';
import { mountSidebarTabs, type ChosenTab } from '../workspace/sidebar-tabs.ts';

/** Builds the page of model `id`. */
export function modelPage(id: string): Page {
  return (outlet) => {
    // The panel tab chosen outlives a rebuild of the page.
    const tab: ChosenTab = {};
    let leave = mountModelPage(id, outlet, remount, tab);
    /** Builds the page afresh, so a model sent back to conversion is followed and opened again like a new one. */
    function remount(): void {
      leave();
      outlet.replaceChildren();
      leave = mountModelPage(id, outlet, remount, tab);
    }
    return () => leave();
  };
}

/** Fills `outlet` with the page of model `id`; `remount` rebuilds it, on the panel tab `tab` keeps. Returns the clean-up. */
function mountModelPage(id: string, outlet: HTMLElement, remount: () => void, tab: ChosenTab): () => void {
  let left = false;
  // On wide screens the page is sized to the window (styles.css), so the view's tools are never below the fold.
  const app = outlet.parentElement;
  app?.classList.add('fills-window');
  const cleanups: (() => void)[] = [];
  const title = h('h1', {}, 'Loading model…');
  const badgeSlot = h('span', { class: 'badge-slot' });
  const tagSlot = h('ul', { class: 'tag-list heading-tags', 'aria-label': 'Tags' });
  const statusBox = h('div', { class: 'status-box', role: 'status' });
  // Until the model is converted, its place in the view column holds the conversion state, not a blank.
  const pending = h('div', { class: 'pending-view' }, statusBox);
  const viewerColumn = h('div', { class: 'viewer-column' }, pending);
  const sidebar = h('div', { class: 'sidebar' });
  const tabs = mountSidebarTabs(sidebar, tab);
  cleanups.push(tabs.dispose);
  /** Page-level actions beside the title (export menu, share button): append a button here. */
  const actions = h('div', { class: 'model-actions' });
  const downloads = h('section', { class: 'card downloads' }, h('h2', {}, 'Downloads'));
  outlet.append(
    h(
      'section',
      { class: 'model-page' },
      h(
        'div',
        { class: 'page-heading' },
        h('a', { href: '#/', class: 'back-link' }, '← Models'),
        title,
        badgeSlot,
        tagSlot,
        actions,
      ),
      h(
        'div',
        { class: 'model-layout' },
        viewerColumn,
        h('div', { class: 'side-column' }, tabs.element, sidebar),
      ),
    ),
  );

  const showHeading = (model: Model): void => {
    title.textContent = model.name;
    document.title = `${model.name} · Vitrine`;
    badgeSlot.replaceChildren(statusBadge(model));
    // Each tag opens the catalog filtered by it.
    tagSlot.replaceChildren(
      ...model.tags.map((tag) =>
        h('li', {}, h('a', { class: 'tag', href: catalogHash({ ...emptyQuery(), tag }) }, tag)),
      ),
    );
  };

  /** Opens the view of `model` once it is converted; `tilesetRead` settles when a prefetched tileset is read. */
  const openViewer = async (model: Model, tilesetRead?: Promise<void>): Promise<void> => {
    const asked = Promise.all([getParts(model.id), getLods(model.id)]);
    // Its failure is taken up below; this only keeps it from being reported unhandled while the tileset is read.
    asked.catch(() => undefined);
    // The view (its WebGL renderer's start) is made while parts and levels are on their way; a streamed model's
    // after its tileset is read, so the root tile's request does not wait for the renderer.
    if (tilesetRead) await tilesetRead;
    if (left) return;
    const workspaceView = createWorkspaceView(model);
    let parts: Part[];
    let lods: Lod[];
    try {
      [parts, lods] = await asked;
    } catch (error) {
      workspaceView.view.dispose();
      throw error;
    }
    if (left) {
      workspaceView.view.dispose();
      return;
    }
    showDownloads(model, lods);
    const exportMenu = createExportMenu({ ...model, lods });
    actions.append(exportMenu.element);
    cleanups.push(exportMenu.dispose);
    const slots = { viewerColumn, sidebar, onCurrentVersionChanged: remount };
    cleanups.push(mountModelWorkspace(model, parts, lods, slots, workspaceView));
  };

  const showDownloads = (model: Model, lods: Model['lods']): void => {
    downloads.replaceChildren(h('h2', {}, 'Downloads'), createDownloads(model, lods));
  };

  getModel(id)
    .then((model) => {
      if (left) return;
      // The tiles' first frame waits on the tileset and its root tile: fetch them while the page is built.
      const tilesetRead =
        model.status === 'completed' && model.tileset_url && askedLevel() === null
          ? prefetchTileset(model.tileset_url)
          : undefined;
      // Parts and levels are asked for first, so they travel while the heading and details are built.
      if (model.status === 'completed') attempt('Opening the model', () => openViewer(model, tilesetRead));
      showHeading(model);
      const details = createModelDetails(model, {
        onUpdated: showHeading,
        onReprocessing: remount,
        onDeleted: () => navigate('/'),
      });
      cleanups.push(details.dispose);
      sidebar.append(
        h('section', { class: 'card' }, h('h2', {}, 'Details'), details.element),
        downloads,
        createSharePanel(model),
      );
      showDownloads(model, []);
      if (model.status !== 'completed') {
        if (model.thumbnail_url)
          pending.prepend(h('img', { src: model.thumbnail_url, alt: '', class: 'pending-thumb' }));
        cleanups.push(
          followConversion(statusBox, model, {
            onUpdate: showHeading,
            onCompleted: (ready) => {
              // The conversion brought a new thumbnail and new facts.
              details.update(ready);
              attempt('Opening the model', () => openViewer(ready));
            },
          }),
        );
      }
    })
    .catch((error: unknown) => {
      if (left) return;
      title.textContent = 'Model not available';
      statusBox.replaceChildren(
        h('p', { class: 'error-text' }, error instanceof Error ? error.message : String(error)),
        h('a', { href: '#/' }, 'Back to the catalog'),
      );
    });

  return () => {
    left = true;
    app?.classList.remove('fills-window');
    document.title = 'Vitrine';
    for (const cleanup of cleanups) cleanup();
  };
}
