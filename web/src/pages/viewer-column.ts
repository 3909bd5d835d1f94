/** Where the workspace's view and its tools sit in the view column. */
import { h } from '../ui/dom.ts';

/** How to work the view, under it. */
const VIEW_HINT =
  'Drag to orbit, scroll to zoom. Click a part to select it; Shift or Ctrl + click adds or removes parts. Esc clears. ' +
  'Measure: click two points (a vertex within 10 px is snapped to); distances are in metres.';

/** The pieces of the view column, made by the workspace. */
export interface ViewerColumnPieces {
  /** The LOD switcher, or null for a model without levels. */
  lodSwitcher: HTMLElement | null;
  /** Controls of fixed size in the toolbar above the view. */
  viewTools: HTMLElement[];
  /** The view with its toolbar and readouts over it, holding `viewport`: what goes fullscreen. */
  stage: HTMLElement;
  /** Readouts of what is shown, selected and measured, under the view. */
  readouts: HTMLElement[];
  /** Tools that grow (sections, an animation's controls), below the readouts. */
  belowView: HTMLElement[];
  resetView: () => void;
  clearSelection: () => void;
}

/**
 * Fills the view column. Everything that acts on the view sits right above or below it, so at 1280×800 no tool is
 * below the fold. Above the view only controls of fixed size: whatever grows (readouts, the clip's controls) goes
 * below it, where it cannot move the canvas between two clicks.
 */
export function layOutViewerColumn(column: HTMLElement, pieces: ViewerColumnPieces): void {
  column.replaceChildren(
    h(
      'div',
      { class: 'viewer-toolbar' },
      pieces.lodSwitcher,
      h('div', { class: 'view-tools', role: 'toolbar', 'aria-label': 'View tools' }, ...pieces.viewTools),
    ),
    pieces.stage,
    h(
      'div',
      { class: 'viewer-status' },
      ...pieces.readouts,
      h(
        'div',
        { class: 'button-row' },
        h('button', { type: 'button', onclick: pieces.resetView }, 'Reset view'),
        h('button', { type: 'button', onclick: pieces.clearSelection }, 'Clear selection'),
      ),
    ),
    h('div', { class: 'viewer-tools' }, ...pieces.belowView),
    h('p', { class: 'hint' }, VIEW_HINT),
  );
}
