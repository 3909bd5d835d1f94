/** A share link's annotations, read-only: pins over the view and, outside an embed, the numbered list. */
import type { Annotation } from '../api/review-api.ts';
import { showAnnotations } from '../pages/annotation-pins.ts';
import { createAnnotationList } from '../pages/annotations-list.ts';
import '../pages/review.css';
import { h } from '../ui/dom.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { getSharedAnnotations } from './shared-api.ts';

/** Where the annotations go and what choosing one does. */
export interface SharedAnnotationsPlace {
  view: ModelViewport;
  viewport: HTMLElement;
  /** The column the list card joins; null in an embed, which shows the pins alone. */
  sidebar: HTMLElement | null;
  /** Selects the annotation's part. */
  select: (groupId: string) => void;
}

/** Fetches the annotations of shared model `id` under link `base` and shows them in `place`; never rejects. */
export async function mountSharedAnnotations(
  base: string,
  id: string,
  place: SharedAnnotationsPlace,
): Promise<void> {
  let annotations: Annotation[] = [];
  const choose = (annotation: Annotation): void => {
    pins.flyTo(annotation);
    list.setActive(annotation.id);
    place.select(annotation.group_id);
  };
  const pins = showAnnotations(place.view, place.viewport, (pinId) => {
    const annotation = annotations.find((entry) => entry.id === pinId);
    if (annotation) choose(annotation);
  });
  const list = createAnnotationList(choose);
  place.sidebar?.append(
    h('section', { class: 'card annotations-panel' }, h('h2', {}, 'Annotations'), list.element),
  );
  try {
    annotations = await getSharedAnnotations(base, id);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    list.element.replaceChildren(
      h('li', { class: 'hint' }, `The annotations could not be loaded: ${reason}`),
    );
    return;
  }
  pins.show(annotations);
  list.render(annotations);
}
