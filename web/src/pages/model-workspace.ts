/** The working area of a converted model: the view with its LOD switcher, the parts tree and the materials panel, kept in step. */
import type { Lod, Material, Model, Part } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { attempt } from '../ui/notify.ts';
import { nextSelection } from '../viewer/next-selection.ts';
import { selectionSummary } from '../viewer/selection-summary.ts';
import { opensTiles } from '../viewer/tiles-opening.ts';
import { createAnimationSlot } from './animation-slot.ts';
import { onEscape } from './escape-key.ts';
import { createMeasureControls } from './measure-controls.ts';
import { createSectionControls } from './section-controls.ts';
import { layOutViewerColumn } from './viewer-column.ts';
import { createWorkspaceLevels } from './workspace-levels.ts';
import { createPartVisibility } from '../workspace/part-visibility.ts';
import { createViewStage } from '../workspace/view-stage.ts';
import { partPaths } from '../view-tools/explode-hierarchy.ts';
import { createWorkspacePaint } from '../workspace/workspace-paint.ts';
import type { WorkspaceView } from './workspace-view.ts';
import { mountWorkspacePanels, whenViewStarted, type WorkspacePanels } from './workspace-panels.ts';
import type { MaterialsChange } from './materials-panel.ts';

/** Where the workspace goes: the view column and the top of the tool column. */
export interface WorkspaceSlots {
  viewerColumn: HTMLElement;
  sidebar: HTMLElement;
  /** The model's current version changed (a new one completed, an old one was restored). */
  onCurrentVersionChanged: () => void;
}

/**
 * Fills the slots for `model` around its view (made beforehand: {@link WorkspaceView}) and loads its first level.
 * The selection lives here, so a pick in the view, a click in the tree and the bind buttons all see the same set.
 * The view's column comes first and starts loading; the side panels follow once the view has started
 * (`whenViewStarted`: a tiled model's first frame, a level's request), brought up to the selection, hidden parts
 * and paint of that moment. Returns the clean-up.
 */
export function mountModelWorkspace(
  model: Model,
  parts: Part[],
  lods: Lod[],
  slots: WorkspaceSlots,
  workspaceView: WorkspaceView,
): () => void {
  const { viewerColumn, sidebar } = slots;
  let disposed = false;
  let selection = new Set<string>();
  let hidden = new Set<string>();
  const { view, viewport } = workspaceView;
  const triangleLabel = h('output', { class: 'triangle-count', 'aria-live': 'polite' }, 'Loading…');
  const selectionLabel = h('span', { class: 'selection-summary', 'aria-live': 'polite' });
  const partsByGroup = new Map(parts.map((part) => [part.group_id, part]));

  /** The side panels, null until built. */
  let panels: WorkspacePanels | null = null;
  const showSelection = (shown: WorkspacePanels | null): void => {
    shown?.tree.setSelection(selection);
    shown?.properties.show(selection);
    shown?.versions.selectionChanged(selection);
    shown?.materials.selectionChanged();
  };

  const select = (groupId: string | null, additive: boolean): void => {
    selection = nextSelection(selection, groupId, additive);
    view.setSelection(selection);
    showSelection(panels);
    visibility.update(selection.size, hidden.size);
    viewport.dataset.selected = String(selection.size);
    const names = [...selection].map((id) => partsByGroup.get(id)?.name || id);
    selectionLabel.textContent = selectionSummary(names);
  };

  const paint = createWorkspacePaint(model.id, parts, {
    view,
    viewport,
    isDisposed: () => disposed,
    onPainted: (painted) => panels?.tree.setMaterials(painted),
  });

  const setHidden = (next: Set<string>): void => {
    hidden = next;
    view.setHidden(hidden);
    panels?.tree.setHidden(hidden);
    panels?.properties.setHidden(hidden);
    visibility.update(selection.size, hidden.size);
    viewport.dataset.hidden = String(hidden.size);
  };
  const animation = createAnimationSlot(() => view);
  workspaceView.onPick(select);
  const visibility = createPartVisibility({
    view,
    viewport,
    groupIds: parts.map((part) => part.group_id),
    selection: () => selection,
    hidden: () => hidden,
    setHidden,
  });
  const measure = createMeasureControls(view);
  const stage = createViewStage(model, partPaths(parts), view, viewport);
  const stopEscape = onEscape(() => {
    if (!measure.cancel() && !stage.cancel()) select(null, false);
  });

  const { levels, lodSwitcher, current } = createWorkspaceLevels(model, lods, {
    view,
    viewport,
    triangleLabel,
    isDisposed: () => disposed,
    onShown: animation.show,
  });
  layOutViewerColumn(viewerColumn, {
    lodSwitcher,
    viewTools: [visibility.element, measure.element],
    stage: stage.element,
    readouts: [triangleLabel, selectionLabel, measure.readout],
    belowView: [createSectionControls(view), animation.element],
    resetView: () => view.resetView(),
    clearSelection: () => select(null, false),
  });
  const buildPanels = (): void => {
    if (disposed) return;
    panels = mountWorkspacePanels({
      model,
      parts,
      view,
      viewport,
      viewerColumn,
      sidebar,
      triangleLabel,
      current,
      select,
      hidden: () => hidden,
      setHidden,
      selected: () => [...selection],
      boundMaterialId: (groupId) => paint.current().get(groupId)?.id,
      onMaterialsChanged: (change) => {
        const groupIds = touchedGroups(change, paint.current());
        if (groupIds.length > 0) attempt('Repainting the parts', () => paint.refresh(groupIds));
      },
      setPaintOverride: paint.setOverride,
      onCurrentVersionChanged: slots.onCurrentVersionChanged,
      configuration: paint.configuration,
      showConfiguration: (id) => attempt('Painting the configuration', () => paint.showConfiguration(id)),
      onBindingsReplaced: () => attempt('Repainting the parts', () => paint.refresh()),
    });
    showSelection(panels);
    panels.tree.setHidden(hidden);
    panels.properties.setHidden(hidden);
    panels.tree.setMaterials(paint.current());
    performance.mark('vitrine:panels-built');
  };
  const panelsWait = whenViewStarted(view, opensTiles(lods, model.tileset_url), buildPanels);
  select(null, false);
  attempt('Loading the model', () => levels.open().finally(panelsWait.settled));
  performance.mark('vitrine:view-opening');
  attempt('Loading bound materials', () => paint.refresh());
  return () => {
    disposed = true;
    stopEscape();
    stage.dispose();
    animation.dispose();
    panelsWait.cancel();
    panels?.dispose();
    view.dispose();
  };
}

/**
 * The parts a material change touches, the only ones looked up again: a bind on a model of 100,000 parts is one
 * small call, and an edited material repaints only the parts it is bound to.
 */
function touchedGroups(change: MaterialsChange, paint: ReadonlyMap<string, Material>): string[] {
  if ('created' in change) return [];
  if ('groupIds' in change) return change.groupIds;
  return [...paint].filter(([, material]) => material.id === change.materialId).map(([id]) => id);
}
