/**
 * The view as the workspace shows it: its toolbar on top, the canvas, and readouts over the canvas's lower
 * corner. The stage keeps one size whatever is clicked (readouts float over the view, they never push it), and it
 * is what goes fullscreen, toolbar included.
 */
import { h } from '../ui/dom.ts';
import type { ViewedModel } from '../view-tools/model-lengths.ts';
import type { WorkspaceViewport } from './workspace-viewport.ts';
import { createPartMeasures } from './part-measures.ts';
import { createViewToolbar } from './view-toolbar.ts';
import './workspace.css';

/** The stage, a way to switch off its measures (Esc), and its clean-up. */
export interface ViewStage {
  element: HTMLElement;
  /** The toolbar, which a page may lengthen with its own tools. */
  toolbar: HTMLElement;
  /** The box over the canvas, for a page's floating panels. */
  frame: HTMLElement;
  /** The readouts' column over the canvas's lower left corner, for a page's own lines. */
  readout: HTMLElement;
  /** Switches off Distance or Angle; true when one was on. */
  cancel: () => boolean;
  dispose: () => void;
}

/**
 * Builds the stage around `viewport`, the element `view` draws into; `paths` gives each part's path in the
 * assembly, by group id, which the exploded view follows.
 */
export function createViewStage(
  model: ViewedModel,
  paths: ReadonlyMap<string, string>,
  view: WorkspaceViewport,
  viewport: HTMLElement,
): ViewStage {
  const readout = h('div', { class: 'view-readout' });
  const element = h('div', { class: 'view-stage' });
  const measures = createPartMeasures(model, view, readout);
  const toolbar = createViewToolbar({ model, paths, view, stage: element, readout, extra: measures.buttons });
  const frame = h('div', { class: 'view-frame' }, viewport, readout);
  element.append(toolbar.element, frame);
  return {
    element,
    toolbar: toolbar.element,
    frame,
    readout,
    cancel: measures.cancel,
    dispose: toolbar.dispose,
  };
}
