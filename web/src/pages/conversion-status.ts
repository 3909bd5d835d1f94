/** The status box of a model that is not converted yet: live progress, or the error with a Reprocess button. */
import { reprocessModel } from '../api/catalog-api.ts';
import type { Model } from '../api/types.ts';
import { h } from '../ui/dom.ts';
import { attempt, notifyError } from '../ui/notify.ts';
import { followModel } from './follow-model.ts';

/** What the page learns while following a conversion. */
export interface ConversionHandlers {
  /** Every state read, for the heading's badge. */
  onUpdate: (model: Model) => void;
  /** Once the model is ready to view; the box is emptied first. */
  onCompleted: (model: Model) => void;
}

/** Shows `model`'s conversion in `box` and follows it until it settles; returns a function that stops following. */
export function followConversion(box: HTMLElement, model: Model, handlers: ConversionHandlers): () => void {
  let stop: (() => void) | null = null;
  let stopped = false;
  const bar = h('progress', { max: 100, value: model.progress, 'aria-label': 'Conversion progress' });
  const text = h('span', {});
  const actions = h('div', { class: 'button-row' });
  box.replaceChildren(text, bar, actions);

  const show = (next: Model): void => {
    handlers.onUpdate(next);
    actions.replaceChildren();
    if (next.status === 'failed') {
      bar.hidden = true;
      text.className = 'error-text';
      text.textContent = `Conversion failed: ${next.error ?? 'no reason given'}`;
      actions.append(
        h('button', { type: 'button', class: 'primary', onclick: () => reprocess(next) }, 'Reprocess'),
      );
    } else if (next.status === 'completed') {
      box.replaceChildren();
      handlers.onCompleted(next);
    } else {
      bar.hidden = false;
      bar.value = next.progress;
      text.className = '';
      text.textContent = `${next.status === 'pending' ? 'Waiting for conversion' : 'Converting'}: ${Math.round(next.progress)} %`;
    }
  };

  const follow = (next: Model): void => {
    show(next);
    if (next.status === 'failed' || next.status === 'completed') return;
    stop = followModel(next.id, show, (error) => notifyError(error, 'Following the conversion'));
  };

  const reprocess = (failed: Model): void => {
    attempt('Reprocessing', async () => {
      const next = await reprocessModel(failed.id);
      if (!stopped) follow(next);
    });
  };

  follow(model);
  return () => {
    stopped = true;
    stop?.();
  };
}
