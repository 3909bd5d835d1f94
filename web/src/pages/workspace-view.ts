/**
 * The workspace's 3D view, made as soon as the page knows its model is converted: the WebGL renderer's start
 * (a few hundred milliseconds on a software renderer) then runs while the model's parts, levels and tileset are
 * still on their way, instead of after they arrive.
 */
import type { Model } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import type { PickHandler } from '../viewer/model-viewport.ts';
import { WorkspaceViewport } from '../workspace/workspace-viewport.ts';

/** The view, its element, and where its clicks go once the workspace is built. */
export interface WorkspaceView {
  /** The view's element (class `viewer`), carrying `data-state` and the other `data-` readouts. */
  viewport: HTMLElement;
  view: WorkspaceViewport;
  /** Sends the view's picks to `handler`; until then a pick selects nothing. */
  onPick: (handler: PickHandler) => void;
}

/** Makes the view of `model`, not yet in the page. Dispose of its `view` if no workspace takes it. */
export function createWorkspaceView(model: Model): WorkspaceView {
  const viewport = h('div', { class: 'viewer', 'data-state': 'loading' });
  let pick: PickHandler | null = null;
  const view = new WorkspaceViewport(
    viewport,
    (groupId, additive) => pick?.(groupId, additive),
    `3D view of ${model.name}. Drag to orbit, scroll to zoom, arrow keys to pan, click a part to select it.`,
  );
  performance.mark('vitrine:view-created');
  return {
    viewport,
    view,
    onPick: (handler) => {
      pick = handler;
    },
  };
}
