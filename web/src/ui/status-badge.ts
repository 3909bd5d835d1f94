/** The coloured conversion-status label used on cards and the model page. */
import type { Model } from '../api/types.ts';
import { h } from './dom.ts';

/** A badge naming the status, with the progress while converting. */
export function statusBadge(model: Pick<Model, 'status' | 'progress'>): HTMLElement {
  const text =
    model.status === 'processing' || model.status === 'pending'
      ? `${model.status} ${Math.round(model.progress)} %`
      : model.status;
  return h('span', { class: `badge status-${model.status}` }, text);
}
