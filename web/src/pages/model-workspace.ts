/** The working area of a converted model: the view with its LOD switcher, the parts tree and the materials panel, kept in step. */
import { materialsForGroups } from '../api/materials-api.ts';
import type { Lod, Material, Model, Part } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { attempt } from '../ui/notify.ts';
import { ModelViewport } from '../viewer/model-viewport.ts';
import { nextSelection } from '../viewer/next-selection.ts';
import { createAnimationSlot } from './animation-slot.ts';
import { onEscape } from './escape-key.ts';
import { createMaterialsPanel } from './materials-panel.ts';
import { createMeasureControls } from './measure-controls.ts';
import { createPropertiesPanel } from './part-properties-panel.ts';
import { createPartsTree } from './parts-tree.ts';
import { createPropertyFilter } from './property-filter.ts';
import { mountReviewTools } from './review-tools.ts';
import { createSectionControls } from './section-controls.ts';
import { createVersionsPanel } from './versions-panel.ts';
import { createVisibilityTools } from './visibility-tools.ts';
import { layOutViewerColumn } from './viewer-column.ts';
import { createWorkspaceLevels } from './workspace-levels.ts';

/** The readout of the selection, from the names of the selected parts. */
function selectionSummary(names: string[]): string {
  if (names.length === 0) return 'No part selected';
  return names.length === 1 ? `Selected: ${names[0]}` : `${names.length} parts selected`;
}

/** Where the workspace goes: the view column and the top of the tool column. */
export interface WorkspaceSlots {
  viewerColumn: HTMLElement;
  sidebar: HTMLElement;
  /** The model's current version changed (a new one completed, an old one was restored). */
  onCurrentVersionChanged: () => void;
}

/**
 * Fills the slots for `model` and loads its first level. The selection lives here, so a pick in the
 * view, a click in the tree and the bind buttons all see the same set. Returns the clean-up.
 */
export function mountModelWorkspace(
  model: Model,
  parts: Part[],
  lods: Lod[],
  slots: WorkspaceSlots,
): () => void {
  const { viewerColumn, sidebar } = slots;
  let disposed = false;
  let selection = new Set<string>();
  let hidden = new Set<string>();
  let paint = new Map<string, Material>();
  let paintOverride: Map<string, Material> | null = null;
  const viewport = h('div', { class: 'viewer', 'data-state': 'loading' });
  const triangleLabel = h('output', { class: 'triangle-count', 'aria-live': 'polite' }, 'Loading…');
  const selectionLabel = h('span', { class: 'selection-summary', 'aria-live': 'polite' });
  const partsByGroup = new Map(parts.map((part) => [part.group_id, part]));

  const select = (groupId: string | null, additive: boolean): void => {
    selection = nextSelection(selection, groupId, additive);
    view.setSelection(selection);
    tree.setSelection(selection);
    properties.show(selection);
    versions.selectionChanged(selection);
    materials.selectionChanged();
    visibility.update(selection.size, hidden.size);
    viewport.dataset.selected = String(selection.size);
    const names = [...selection].map((id) => partsByGroup.get(id)?.name || id);
    selectionLabel.textContent = selectionSummary(names);
  };

  const refreshPaint = async (): Promise<void> => {
    const entries = await materialsForGroups(parts.map((part) => part.group_id));
    if (disposed) return;
    paint = new Map(entries.map((entry) => [entry.group_id, entry.material]));
    view.setPaint(paintOverride ?? paint);
    tree.setMaterials(paint);
    viewport.dataset.paint = String(paint.size);
  };

  const setHidden = (next: Set<string>): void => {
    hidden = next;
    view.setHidden(hidden);
    tree.setHidden(hidden);
    visibility.update(selection.size, hidden.size);
    viewport.dataset.hidden = String(hidden.size);
  };
  const animation = createAnimationSlot(() => view);
  const view = new ModelViewport(
    viewport,
    select,
    `3D view of ${model.name}. Drag to orbit, scroll to zoom, arrow keys to pan, click a part to select it.`,
  );
  const tree = createPartsTree(parts, select);
  const properties = createPropertiesPanel(model.id);
  const propertyFilter = createPropertyFilter(model.id, (matches) => tree.setPropertyMatches(matches));
  /** True while the camera frames an isolated selection rather than the whole model. */
  let framedIsolation = false;
  const visibility = createVisibilityTools({
    isolate: () => {
      setHidden(new Set(parts.map((part) => part.group_id).filter((id) => !selection.has(id))));
      // Isolating a small part would leave it tiny in an empty view: bring it up to fill the view.
      view.frameParts(selection);
      framedIsolation = true;
    },
    hide: () => setHidden(new Set([...hidden, ...selection])),
    showAll: () => {
      setHidden(new Set());
      if (framedIsolation) view.resetView();
      framedIsolation = false;
    },
    setXray: (on) => {
      view.setXray(on);
      viewport.dataset.xray = String(on);
    },
  });
  const measure = createMeasureControls(view);
  const materials = createMaterialsPanel({
    binding: { selected: () => [...selection], boundMaterialId: (groupId) => paint.get(groupId)?.id },
    onChanged: () => attempt('Repainting the parts', refreshPaint),
  });
  const stopEscape = onEscape(() => {
    if (!measure.cancel()) select(null, false);
  });

  const { levels, lodSwitcher, current } = createWorkspaceLevels(model, lods, {
    view,
    viewport,
    triangleLabel,
    isDisposed: () => disposed,
    onShown: animation.show,
  });
  const versions = createVersionsPanel({
    model,
    view,
    viewport,
    triangleLabel,
    tree,
    current,
    setPaintOverride: (override) => {
      paintOverride = override;
      view.setPaint(override ?? paint);
    },
    onCurrentChanged: slots.onCurrentVersionChanged,
  });
  layOutViewerColumn(viewerColumn, {
    lodSwitcher,
    viewTools: [visibility.element, measure.element],
    viewport,
    readouts: [triangleLabel, selectionLabel, measure.readout],
    belowView: [createSectionControls(view), animation.element],
    resetView: () => view.resetView(),
    clearSelection: () => select(null, false),
  });
  sidebar.prepend(
    h(
      'section',
      { class: 'card parts-section' },
      h('h2', {}, `Parts (${parts.length})`),
      propertyFilter,
      tree.element,
    ),
    h('section', { class: 'card materials-section' }, h('h2', {}, 'Materials'), materials.element),
    // Below the materials, so binding stays in sight at 1280×800; the tree's selection scrolls nothing here.
    h('section', { class: 'card properties-section' }, h('h2', {}, 'Properties'), properties.element),
    versions.element,
  );
  const stopReview = mountReviewTools({
    model,
    parts,
    view,
    viewport,
    viewerColumn,
    sidebar,
    select,
    hidden: () => hidden,
    setHidden,
  });
  select(null, false);
  attempt('Loading the model', () => levels.open());
  attempt('Loading bound materials', refreshPaint);
  return () => {
    disposed = true;
    stopEscape();
    animation.dispose();
    stopReview();
    versions.dispose();
    view.dispose();
  };
}
