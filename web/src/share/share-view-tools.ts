/**
 * The share page's tools over its view, read-only: the workspace's own stage (fullscreen, a screenshot, the preset
 * views, orthographic projection, edges, explode, dimensions, and the Distance and Angle measures) and, outside an
 * embed, isolating the picked parts and section planes. They change what is shown, never the model: nothing here
 * binds, annotates, deletes or uploads.
 */
import { onEscape } from '../pages/escape-key.ts';
import { createSectionControls } from '../pages/section-controls.ts';
import type { VisibilityTools } from '../pages/visibility-tools.ts';
import type { ViewedModel } from '../view-tools/model-lengths.ts';
import { createPartVisibility } from '../workspace/part-visibility.ts';
import { createViewStage } from '../workspace/view-stage.ts';
import type { WorkspaceViewport } from '../workspace/workspace-viewport.ts';

/** The page's selection and parts, which isolating acts on. */
export interface ShareToolsState {
  /** Every part of the model, by group id. */
  groupIds: readonly string[];
  selection: () => ReadonlySet<string>;
  /** Hears each new hidden set, to show it in the parts list too. */
  onHidden: (hidden: Set<string>) => void;
  /** Clears the selection (Esc, once no measure is on). */
  clearSelection: () => void;
}

/** The tools' elements, placed by the page, and their clean-up. */
export interface ShareViewTools {
  /** The view with its toolbar and readouts: what goes fullscreen. */
  stage: HTMLElement;
  /** Isolate, Hide, Show all and X-ray for the picked parts; null in an embed. */
  visibility: VisibilityTools | null;
  /** The section planes' switches and sliders; null in an embed. */
  sections: HTMLElement | null;
  /** Updates the visibility row after the selection changed. */
  selectionChanged: () => void;
  dispose: () => void;
}

/** Builds the tools of `view`, whose element is `viewport`; an `embed` gets the stage's toolbar alone. */
export function createShareViewTools(
  model: ViewedModel,
  view: WorkspaceViewport,
  viewport: HTMLElement,
  embed: boolean,
  state: ShareToolsState,
): ShareViewTools {
  const stage = createViewStage(model, view, viewport);
  let hidden = new Set<string>();
  const setHidden = (next: Set<string>): void => {
    hidden = next;
    view.setHidden(hidden);
    viewport.dataset.hidden = String(hidden.size);
    state.onHidden(hidden);
    visibility?.update(state.selection().size, hidden.size);
  };
  const visibility = embed
    ? null
    : createPartVisibility({
        view,
        viewport,
        groupIds: state.groupIds,
        selection: state.selection,
        hidden: () => hidden,
        setHidden,
      });
  visibility?.update(0, 0);
  const stopEscape = onEscape(() => {
    if (!stage.cancel()) state.clearSelection();
  });
  return {
    stage: stage.element,
    visibility,
    sections: embed ? null : createSectionControls(view),
    selectionChanged: () => visibility?.update(state.selection().size, hidden.size),
    dispose: () => {
      stopEscape();
      stage.dispose();
    },
  };
}
