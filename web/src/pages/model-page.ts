/** One model: conversion state until ready, then the 3D view with LODs, parts, materials and details. */
import { getLods, getModel, getParts, reprocessModel } from '../api/catalog-api.ts';
import { materialsForGroups } from '../api/materials-api.ts';
import type { Lod, Material, Model, Part } from '../api/types.ts';
import { navigate } from '../router.ts';
import type { Page } from '../router.ts';
import { h } from '../ui/dom.ts';
import { formatCount } from '../ui/format.ts';
import { attempt, notifyError } from '../ui/notify.ts';
import { statusBadge } from '../ui/status-badge.ts';
import { ModelView } from '../viewer/model-view.ts';
import { createLodSwitcher } from './lod-switcher.ts';
import { createMaterialsPanel } from './materials-panel.ts';
import { createModelDetails } from './model-details.ts';
import { createPartsTree } from './parts-tree.ts';
import { pollModel } from './poll-model.ts';

/** Builds the page of model `id`. */
export function modelPage(id: string): Page {
  return (outlet) => {
    let left = false;
    const cleanups: (() => void)[] = [];
    const title = h('h1', {}, 'Loading model…');
    const badgeSlot = h('span', { class: 'badge-slot' });
    const statusBox = h('div', { class: 'status-box', role: 'status' });
    const viewerColumn = h('div', { class: 'viewer-column' });
    const sidebar = h('div', { class: 'sidebar' });
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
        ),
        statusBox,
        h('div', { class: 'model-layout' }, viewerColumn, sidebar),
      ),
    );

    const showHeading = (model: Model): void => {
      title.textContent = model.name;
      document.title = `${model.name} · Vitrine`;
      badgeSlot.replaceChildren(statusBadge(model));
    };

    const followConversion = (model: Model): void => {
      const bar = h('progress', { max: 100, value: model.progress, 'aria-label': 'Conversion progress' });
      const text = h('span', {});
      const actions = h('div', { class: 'button-row' });
      statusBox.replaceChildren(text, bar, actions);
      const show = (next: Model): void => {
        showHeading(next);
        actions.replaceChildren();
        if (next.status === 'failed') {
          bar.hidden = true;
          text.className = 'error-text';
          text.textContent = `Conversion failed: ${next.error ?? 'no reason given'}`;
          actions.append(
            h('button', { type: 'button', class: 'primary', onclick: () => reprocess(next) }, 'Reprocess'),
          );
        } else if (next.status === 'completed') {
          statusBox.replaceChildren();
          attempt('Opening the model', () => openViewer(next));
        } else {
          bar.hidden = false;
          bar.value = next.progress;
          text.className = '';
          text.textContent = `${next.status === 'pending' ? 'Waiting for conversion' : 'Converting'}: ${Math.round(next.progress)} %`;
        }
      };
      show(model);
      if (model.status === 'failed' || model.status === 'completed') return;
      cleanups.push(pollModel(model.id, show, (error) => notifyError(error, 'Following the conversion')));
    };

    const reprocess = (model: Model): void => {
      attempt('Reprocessing', async () => {
        const next = await reprocessModel(model.id);
        if (!left) followConversion(next);
      });
    };

    const openViewer = async (model: Model): Promise<void> => {
      const [parts, lods] = await Promise.all([getParts(model.id), getLods(model.id)]);
      if (left) return;
      mountViewer(model, parts, lods);
    };

    const mountViewer = (model: Model, parts: Part[], lods: Lod[]): void => {
      let selection = new Set<string>();
      let paint = new Map<string, Material>();
      const viewport = h('div', { class: 'viewer', 'data-state': 'loading' });
      const triangleLabel = h('output', { class: 'triangle-count', 'aria-live': 'polite' }, 'Loading…');
      const selectionLabel = h('span', { class: 'selection-summary', 'aria-live': 'polite' });
      const partsByGroup = new Map(parts.map((part) => [part.group_id, part]));

      const select = (groupId: string | null, additive: boolean): void => {
        const next = new Set(additive ? selection : []);
        if (groupId !== null) {
          if (additive && next.has(groupId)) next.delete(groupId);
          else next.add(groupId);
        }
        selection = next;
        view.setSelection(selection);
        tree.setSelection(selection);
        materials.selectionChanged();
        const names = [...selection].map((id) => partsByGroup.get(id)?.name || id);
        selectionLabel.textContent =
          names.length === 0
            ? 'No part selected'
            : names.length === 1
              ? `Selected: ${names[0]}`
              : `${names.length} parts selected`;
      };

      const refreshPaint = async (): Promise<void> => {
        const entries = await materialsForGroups(parts.map((part) => part.group_id));
        if (left) return;
        paint = new Map(entries.map((entry) => [entry.group_id, entry.material]));
        view.setPaint(paint);
        tree.setMaterials(paint);
        viewport.dataset.paint = String(paint.size);
      };

      const loadLevel = async (url: string, level: number): Promise<void> => {
        viewport.dataset.state = 'loading';
        triangleLabel.textContent = `Loading LOD ${level}…`;
        try {
          const { triangles } = await view.load(url);
          if (left) return;
          viewport.dataset.state = 'ready';
          viewport.dataset.lod = String(level);
          triangleLabel.textContent = `LOD ${level}: ${formatCount(triangles)} triangles shown`;
        } catch (error) {
          viewport.dataset.state = 'error';
          triangleLabel.textContent = `LOD ${level} could not be shown`;
          throw error;
        }
      };

      const view = new ModelView(
        viewport,
        select,
        `3D view of ${model.name}. Drag to orbit, scroll to zoom, arrow keys to pan, click a part to select it.`,
      );
      cleanups.push(() => view.dispose());
      const tree = createPartsTree(parts, select);
      const materials = createMaterialsPanel({
        binding: { selected: () => [...selection], boundMaterialId: (groupId) => paint.get(groupId)?.id },
        onChanged: () => attempt('Repainting the parts', refreshPaint),
      });
      viewport.addEventListener('keydown', (event) => {
        if (event.key === 'Escape') select(null, false);
      });

      const levels = lods.length > 0 ? lods : [];
      viewerColumn.replaceChildren(
        h(
          'div',
          { class: 'viewer-toolbar' },
          levels.length > 0
            ? createLodSwitcher(levels, levels[0].level, (lod) =>
                attempt(`Loading LOD ${lod.level}`, () => loadLevel(lod.url, lod.level)),
              )
            : null,
        ),
        viewport,
        h(
          'div',
          { class: 'viewer-status' },
          triangleLabel,
          selectionLabel,
          h(
            'div',
            { class: 'button-row' },
            h('button', { type: 'button', onclick: () => view.resetView() }, 'Reset view'),
            h('button', { type: 'button', onclick: () => select(null, false) }, 'Clear selection'),
          ),
        ),
        h(
          'p',
          { class: 'hint' },
          'Drag to orbit, scroll to zoom. Click a part to select it; Shift or Ctrl + click adds or removes parts. Esc clears.',
        ),
      );
      sidebar.prepend(
        h('section', { class: 'card parts-section' }, h('h2', {}, `Parts (${parts.length})`), tree.element),
        h('section', { class: 'card' }, h('h2', {}, 'Materials'), materials.element),
      );
      select(null, false);
      const first = levels[0];
      const url = first?.url ?? model.model_url;
      if (url) attempt('Loading the model', () => loadLevel(url, first?.level ?? 0));
      attempt('Loading bound materials', refreshPaint);
    };

    getModel(id)
      .then((model) => {
        if (left) return;
        showHeading(model);
        const details = createModelDetails(model, {
          onUpdated: showHeading,
          onDeleted: () => navigate('/'),
        });
        cleanups.push(details.dispose);
        sidebar.append(h('section', { class: 'card' }, h('h2', {}, 'Details'), details.element));
        if (model.status === 'completed') attempt('Opening the model', () => openViewer(model));
        else followConversion(model);
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
      document.title = 'Vitrine';
      for (const cleanup of cleanups) cleanup();
    };
  };
}
