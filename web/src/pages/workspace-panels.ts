/**
 * The workspace's side panels (parts tree with its property filter, materials, properties, versions,
 * configurations) and the review tools. They are built after the view has started drawing (see
 * {@link whenViewFree}), so their build does not hold the main thread while the model's first content is on its
 * way and read.
 */
import type { ConfigurationRef } from '../api/configurations-api.ts';
import type { Material } from '../api/types.ts';
import { createConfigurationsPanel } from '../configurations/configurations-panel.ts';
import { h } from '../ui/dom.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { createMaterialsPanel, type MaterialsChange, type MaterialsPanel } from './materials-panel.ts';
import { createPartCard, type PartCard } from '../workspace/part-card.ts';
import { createPropertiesPanel } from './part-properties-panel.ts';
import { createPartsTree, type PartsTree } from '../parts-tree/parts-tree.ts';
import { createPropertyFilter } from './property-filter.ts';
import { mountReviewTools, type ReviewContext } from './review-tools.ts';
import { acceptVersionDrops } from '../workspace/view-drop.ts';
import { createVersionsPanel, type VersionsPanel } from './versions-panel.ts';
import type { CurrentLevels } from './workspace-levels.ts';
import { WriteAccess } from './write-access.ts';

/** What the panels act on and read from the workspace: what the review tools take, and more. */
export interface WorkspacePanelsContext extends ReviewContext {
  triangleLabel: HTMLElement;
  current: CurrentLevels;
  /** The selected parts' group ids, for the bind buttons. */
  selected: () => string[];
  /** The material bound to a part, for the bind buttons. */
  boundMaterialId: (groupId: string) => number | undefined;
  /** Bindings or a material changed: the paint of the parts it touches must be read again. */
  onMaterialsChanged: (change: MaterialsChange) => void;
  /** A version's paint to show instead of the current bindings (null gives them back). */
  setPaintOverride: (override: Map<string, Material> | null) => void;
  onCurrentVersionChanged: () => void;
  /** The configuration shown, whose paint the view shows and binds write to (null: the model's own). */
  configuration: () => ConfigurationRef | null;
  /** Shows configuration `id`'s paint (null: the present bindings). */
  showConfiguration: (id: string | null) => void;
  /** The model's bindings changed as a whole (a configuration was applied): all paint is read again. */
  onBindingsReplaced: () => void;
}

/** The built panels the workspace keeps in step with its selection, hidden parts and paint. */
export interface WorkspacePanels {
  tree: PartsTree;
  /** The selected part's card: its name and properties. */
  properties: PartCard;
  materials: MaterialsPanel;
  versions: VersionsPanel;
  dispose: () => void;
}

/** Builds the panels into the sidebar (above what it holds) and the review tools around the view. */
export function mountWorkspacePanels(context: WorkspacePanelsContext): WorkspacePanels {
  const { model, parts, view, viewport, sidebar } = context;
  const tree = createPartsTree(parts, context.select);
  const partNames = new Map(parts.map((part) => [part.group_id, part.name || part.group_id]));
  const partCard = createPartCard(
    createPropertiesPanel(model.id),
    (groupId) => partNames.get(groupId) ?? groupId,
  );
  const propertyFilter = createPropertyFilter(model.id, (matches) => tree.setPropertyMatches(matches));
  const materials = createMaterialsPanel({
    binding: {
      selected: context.selected,
      boundMaterialId: context.boundMaterialId,
      configuration: context.configuration,
    },
    onChanged: context.onMaterialsChanged,
  });
  const versions = createVersionsPanel({
    model,
    view,
    viewport,
    triangleLabel: context.triangleLabel,
    tree,
    current: context.current,
    setPaintOverride: context.setPaintOverride,
    onCurrentChanged: context.onCurrentVersionChanged,
  });
  const configurations = createConfigurationsPanel({
    model,
    access: new WriteAccess(),
    current: () => context.configuration()?.id ?? null,
    show: context.showConfiguration,
    onApplied: context.onBindingsReplaced,
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
    versions.element,
    configurations.element,
  );
  // The selected part's card lies over the view's corner, in sight whichever tab is open, and moves nothing.
  const frame = context.viewerColumn.querySelector<HTMLElement>('.view-frame');
  if (frame) frame.append(partCard.element);
  else sidebar.prepend(partCard.element);
  const writes = new WriteAccess();
  const stopDrops = frame
    ? acceptVersionDrops(frame, versions.sendFiles, () => writes.canWrite)
    : () => undefined;
  const stopReview = mountReviewTools({
    model,
    parts,
    view,
    viewport,
    viewerColumn: context.viewerColumn,
    sidebar,
    select: context.select,
    hidden: context.hidden,
    setHidden: context.setHidden,
  });
  return {
    tree,
    properties: partCard,
    materials,
    versions,
    dispose: () => {
      stopReview();
      stopDrops();
      versions.dispose();
      configurations.dispose();
    },
  };
}

/** How long the panels may wait for a drawn frame before they are built anyway. */
const PANELS_WAIT_MS = 10_000;

/**
 * Runs `then` once the view has started: for a tiled opening (`tiles`) right after its first frame with geometry
 * (a few seconds away at most), so that building the panels does not hold the main thread while the first tile
 * is read and drawn, and at the latest after a while; for a level, in the next task, once the level's request is
 * on its way (its download leaves the main thread idle for long). Either way at once when told the opening
 * settled (`settled`). `cancel` stops it for a workspace left before.
 */
export function whenViewStarted(
  view: ModelViewport,
  tiles: boolean,
  then: () => void,
): { cancel: () => void; settled: () => void } {
  let done = false;
  const cancel = () => {
    done = true;
    stopFrames();
    clearTimeout(timer);
  };
  const run = () => {
    if (done) return;
    cancel();
    then();
  };
  // After the frame's own task, so the frame reaches the screen first.
  const stopFrames = tiles
    ? view.onFrame(() => {
        if (view.canvas.dataset.drawn) setTimeout(run);
      })
    : () => {};
  const timer = setTimeout(run, tiles ? PANELS_WAIT_MS : 0);
  return { cancel, settled: run };
}
