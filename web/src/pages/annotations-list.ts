/**
 * The list of a model's annotations, numbered like their pins: click one to fly to it. On the model page each row
 * also has a resolved switch and a delete button; the share page shows the list read-only.
 */
import type { Annotation } from '../api/review-api.ts';
import { h } from '../ui/dom.ts';
import { formatDate } from '../ui/format.ts';
import type { WriteAccess } from './write-access.ts';

/** The edits a row offers; left out, the list is read-only. */
export interface AnnotationEdits {
  access: WriteAccess;
  setResolved: (annotation: Annotation, resolved: boolean) => void;
  remove: (annotation: Annotation) => void;
}

/** A list and the calls that fill it and mark the chosen row. */
export interface AnnotationList {
  element: HTMLElement;
  render: (annotations: Annotation[]) => void;
  setActive: (id: string | null) => void;
}

/** The number an annotation's pin and row carry: its place in the list, oldest first, from 1. */
export function pinLabel(index: number): string {
  return String(index + 1);
}

/** Builds an empty list; `onChoose` runs when a row is clicked. */
export function createAnnotationList(
  onChoose: (annotation: Annotation) => void,
  edits?: AnnotationEdits,
): AnnotationList {
  const element = h('ol', { class: 'review-list annotations-list', 'aria-live': 'polite' });
  const controls: (HTMLInputElement | HTMLButtonElement)[] = [];
  edits?.access.watch((allowed) => {
    for (const control of controls) control.disabled = !allowed;
  });

  const row = (annotation: Annotation, index: number): HTMLElement => {
    const byline = [annotation.author, formatDate(annotation.created_at)].filter(Boolean).join(' · ');
    const item = h(
      'li',
      { class: 'review-item annotation-item', 'data-annotation-id': annotation.id },
      h(
        'button',
        { type: 'button', class: 'annotation-go', onclick: () => onChoose(annotation) },
        h('span', { class: 'pin-number' }, pinLabel(index)),
        h('span', { class: 'annotation-text' }, annotation.text),
      ),
      h('span', { class: 'hint' }, byline),
    );
    item.classList.toggle('resolved', annotation.resolved);
    if (!edits) {
      if (annotation.resolved) item.append(h('span', { class: 'hint' }, 'Resolved'));
      return item;
    }
    const resolved = h('input', { type: 'checkbox', checked: annotation.resolved });
    resolved.addEventListener('change', () => edits.setResolved(annotation, resolved.checked));
    const remove = h(
      'button',
      { type: 'button', class: 'danger', onclick: () => edits.remove(annotation) },
      'Delete',
    );
    for (const control of [resolved, remove]) {
      control.disabled = !edits.access.canWrite;
      controls.push(control);
    }
    item.append(
      h(
        'div',
        { class: 'button-row' },
        h('label', { class: 'resolved-toggle' }, resolved, 'Resolved'),
        remove,
      ),
    );
    return item;
  };

  return {
    element,
    render: (annotations) => {
      controls.length = 0;
      element.replaceChildren(
        ...(annotations.length === 0
          ? [
              h(
                'li',
                { class: 'hint' },
                edits ? 'No annotations yet. Use Annotate, then click a part.' : 'No annotations.',
              ),
            ]
          : annotations.map(row)),
      );
    },
    setActive: (id) => {
      element.querySelectorAll<HTMLElement>('[data-annotation-id]').forEach((item) => {
        item.classList.toggle('active', item.dataset.annotationId === id);
      });
    },
  };
}
