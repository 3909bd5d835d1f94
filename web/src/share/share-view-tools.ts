/**
 * The share page's tools over its view, read-only: the workspace's own stage (fullscreen, a screenshot, the preset
 * views, orthographic projection, edges, explode, dimensions, and the Distance and Angle measures), isolating the
 * picked parts and section planes. The page shows the selection's tools above the stage and the planes below it;
 * an embed, which has room for the stage alone, carries them in the stage's toolbar, the planes in a panel over
 * the view. They change what is shown, never the model: nothing here binds, annotates, deletes or uploads.
 */
import type { Part } from '../api/types.ts';
import { onEscape } from '../pages/escape-key.ts';
import { createSectionControls } from '../pages/section-controls.ts';
import type { VisibilityTools } from '../pages/visibility-tools.ts';
import { h, uid } from '../ui/dom.ts';
import { partPaths } from '../view-tools/explode-hierarchy.ts';
import type { ViewedModel } from '../view-tools/model-lengths.ts';
import { selectionSummary } from '../viewer/selection-summary.ts';
import { createPartVisibility } from '../workspace/part-visibility.ts';
import { createViewStage, type ViewStage } from '../workspace/view-stage.ts';
import { toggleButton } from '../workspace/view-toolbar-button.ts';
import type { WorkspaceViewport } from '../workspace/workspace-viewport.ts';

/** The page's selection and parts, which isolating acts on. */
export interface ShareToolsState {
  /** Every part of the model. */
  parts: readonly Pick<Part, 'group_id' | 'name' | 'path'>[];
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
  /** Isolate, Hide, Show all and X-ray for the picked parts; null in an embed, whose toolbar carries them. */
  visibility: VisibilityTools | null;
  /** The section planes' switches and sliders; null in an embed, whose Section button shows them. */
  sections: HTMLElement | null;
  /** Updates the visibility row (and an embed's readout of the selection) after the selection changed. */
  selectionChanged: () => void;
  dispose: () => void;
}

/** Builds the tools of `view`, whose element is `viewport`; an `embed` gets them all in the stage. */
export function createShareViewTools(
  model: ViewedModel,
  view: WorkspaceViewport,
  viewport: HTMLElement,
  embed: boolean,
  state: ShareToolsState,
): ShareViewTools {
  const stage = createViewStage(model, partPaths(state.parts), view, viewport);
  let hidden = new Set<string>();
  const setHidden = (next: Set<string>): void => {
    hidden = next;
    view.setHidden(hidden);
    viewport.dataset.hidden = String(hidden.size);
    state.onHidden(hidden);
    visibility.update(state.selection().size, hidden.size);
  };
  const visibility = createPartVisibility({
    view,
    viewport,
    groupIds: state.parts.map((part) => part.group_id),
    selection: state.selection,
    hidden: () => hidden,
    setHidden,
  });
  visibility.update(0, 0);
  const sections = createSectionControls(view);
  const picked = embed ? embedTools(stage, visibility, sections) : null;
  const names = new Map(state.parts.map((part) => [part.group_id, part.name]));
  const stopEscape = onEscape(() => {
    if (!stage.cancel()) state.clearSelection();
  });
  return {
    stage: stage.element,
    visibility: embed ? null : visibility,
    sections: embed ? null : sections,
    selectionChanged: () => {
      const selection = state.selection();
      visibility.update(selection.size, hidden.size);
      viewport.dataset.selected = String(selection.size);
      // An empty line takes no room over the view.
      if (picked)
        picked.textContent =
          selection.size === 0 ? '' : selectionSummary([...selection].map((id) => names.get(id) || id));
    },
    dispose: () => {
      stopEscape();
      stage.dispose();
    },
  };
}

/**
 * Puts the selection's tools and a Section button into an embed's toolbar, the planes in a panel over the view's
 * upper right corner that the button shows and hides (the cuts stay until switched off). Returns the readout line
 * that names the selection.
 */
function embedTools(stage: ViewStage, visibility: VisibilityTools, sections: HTMLElement): HTMLElement {
  const panel = h('div', { class: 'section-panel', id: uid('embed-sections'), hidden: true }, sections);
  const section = toggleButton(
    'Section',
    (on) => {
      panel.hidden = !on;
    },
    'Cut the model along X, Y or Z',
  );
  section.setAttribute('aria-controls', panel.id);
  visibility.element.classList.add('toolbar-group');
  stage.toolbar.append(visibility.element, section);
  stage.frame.append(panel);
  const picked = h('div', { class: 'readout-line selection-line', 'aria-live': 'polite' });
  stage.readout.append(picked);
  return picked;
}
