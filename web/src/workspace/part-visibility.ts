/**
 * The selected parts' visibility row (Isolate, Hide, Show all, X-ray) wired to a view: what isolating hides, and
 * the framing that goes with it. The model page and the share page build it alike; each keeps its own hidden set
 * and selection, and hears of every change of the hidden set through `setHidden`.
 */
import { createVisibilityTools, type VisibilityTools } from '../pages/visibility-tools.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';

/** The view and the state the row acts on. */
export interface PartVisibilityOptions {
  view: ModelViewport;
  /** The view's element, carrying `data-xray`. */
  viewport: HTMLElement;
  /** Every part of the model, by group id. */
  groupIds: readonly string[];
  selection: () => ReadonlySet<string>;
  hidden: () => ReadonlySet<string>;
  /** Takes the new hidden set: shows it in the view and wherever else the page lists parts. */
  setHidden: (next: Set<string>) => void;
}

/** Builds the row; call its `update` when the selection or the hidden set changes. */
export function createPartVisibility(options: PartVisibilityOptions): VisibilityTools {
  const { view, viewport, groupIds, selection, hidden, setHidden } = options;
  /** True while the camera frames an isolated selection rather than the whole model. */
  let framedIsolation = false;
  return createVisibilityTools({
    isolate: () => {
      const kept = selection();
      setHidden(new Set(groupIds.filter((id) => !kept.has(id))));
      // Isolating a small part would leave it tiny in an empty view: bring it up to fill the view.
      view.frameParts(kept);
      framedIsolation = true;
    },
    hide: () => setHidden(new Set([...hidden(), ...selection()])),
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
}
