/** The place of the animation controls, rebuilt for each level loaded (clips belong to the loaded file). */
import { h } from '../ui/dom.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { createAnimationControls } from './animation-controls.ts';

/** The slot, the rebuild for the level just loaded, and the stop of the controls shown. */
export interface AnimationSlot {
  element: HTMLElement;
  show: () => void;
  dispose: () => void;
}

/** Builds the empty slot; `show` fills it from the view's animation player, or empties it when there is none. */
export function createAnimationSlot(view: () => ModelViewport): AnimationSlot {
  const element = h('div', { class: 'animation-slot' });
  let stopAnimationControls = (): void => undefined;
  /** Rebuilds the animation controls for the level just loaded (clips belong to the loaded file). */
  const show = (): void => {
    stopAnimationControls();
    const player = view().animation;
    if (!player) {
      element.replaceChildren();
      stopAnimationControls = () => undefined;
      return;
    }
    const controls = createAnimationControls(player, () => view().animationChanged());
    element.replaceChildren(controls.element);
    stopAnimationControls = controls.dispose;
  };
  return { element, show, dispose: () => stopAnimationControls() };
}
