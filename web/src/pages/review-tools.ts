/**
 * Review on the model page: the Annotate switch, the pins over the view, the Annotations and Views cards, and
 * opening at the saved view an address names (`#/models/<id>?view=<view_id>`) once the model has loaded.
 */
import {
  createAnnotation,
  deleteAnnotation,
  getView,
  listAnnotations,
  listTopics,
  updateAnnotation,
  type Annotation,
} from '../api/review-api.ts';
import type { Model, Part } from '../api/types.ts';
import { hashQuery } from '../router.ts';
import { h } from '../ui/dom.ts';
import { attempt } from '../ui/notify.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { createAnnotateMode } from './annotate-mode.ts';
import { createBcfTools } from './bcf-tools.ts';
import { createAnnotationList } from './annotations-list.ts';
import { showAnnotations } from './annotation-pins.ts';
import type { ViewState } from './saved-view-state.ts';
import { createViewsPanel, restoreView, VIEWS_CHANGED } from './views-panel.ts';
import { WriteAccess } from './write-access.ts';
import './review.css';

/** What of the model workspace the review tools use. */
export interface ReviewContext {
  model: Model;
  parts: Part[];
  view: ModelViewport;
  /** The view's container, which carries `data-state` and holds the pins. */
  viewport: HTMLElement;
  viewerColumn: HTMLElement;
  sidebar: HTMLElement;
  select: (groupId: string | null, additive: boolean) => void;
  hidden: () => Set<string>;
  setHidden: (next: Set<string>) => void;
}

/** Runs `then` once the view's element reports its first level drawn (at once when it already has). */
function whenDrawn(viewport: HTMLElement, then: () => void): () => void {
  const drawn = (): boolean => viewport.dataset.state === 'ready' || viewport.dataset.state === 'refining';
  if (drawn()) {
    then();
    return () => undefined;
  }
  const observer = new MutationObserver(() => {
    if (!drawn()) return;
    observer.disconnect();
    then();
  });
  observer.observe(viewport, { attributes: true, attributeFilter: ['data-state'] });
  return () => observer.disconnect();
}

/** Adds the review tools to a mounted workspace; returns the clean-up. */
export function mountReviewTools(context: ReviewContext): () => void {
  const { model, view, viewport, viewerColumn, sidebar } = context;
  const access = new WriteAccess();
  let annotations: Annotation[] = [];

  const refresh = async (): Promise<void> => {
    const [latest, topics] = await Promise.all([listAnnotations(model.id), listTopics(model.id)]);
    annotations = latest;
    pins.show(annotations);
    list.render(annotations);
    bcf.renderNotes(topics);
  };
  const choose = (annotation: Annotation): void => {
    pins.flyTo(annotation);
    list.setActive(annotation.id);
    context.select(annotation.group_id, false);
  };
  const pins = showAnnotations(
    view,
    viewport,
    (id) => {
      const annotation = annotations.find((entry) => entry.id === id);
      if (annotation) choose(annotation);
    },
    (groupId) => !context.hidden().has(groupId),
  );
  const list = createAnnotationList(choose, {
    access,
    setResolved: (annotation, resolved) =>
      access.attempt('Updating the annotation', async () => {
        await updateAnnotation(model.id, annotation.id, { resolved });
        await refresh();
      }),
    remove: (annotation) =>
      access.attempt('Deleting the annotation', async () => {
        await deleteAnnotation(model.id, annotation.id);
        await refresh();
      }),
  });
  const annotate = createAnnotateMode(view, viewport, access, async (draft) => {
    await createAnnotation(model.id, draft);
    await refresh();
  });

  const state: ViewState = {
    view,
    groupIds: context.parts.map((part) => part.group_id),
    hidden: context.hidden,
    setHidden: context.setHidden,
    sectionControls: viewerColumn.querySelector('.section-controls'),
    visibilityTools: viewerColumn.querySelector('.visibility-tools'),
    lodSwitcher: viewerColumn.querySelector('.lod-switcher'),
  };
  viewerColumn.querySelector('.view-tools')?.append(annotate.button);
  const viewsPanel = createViewsPanel(model.id, state, access);
  const bcf = createBcfTools(model, access, async () => {
    viewsPanel.dispatchEvent(new Event(VIEWS_CHANGED));
    await refresh();
  });
  const cards = [
    h('section', { class: 'card annotations-panel' }, h('h2', {}, 'Annotations'), list.element, bcf.element),
    viewsPanel,
  ];
  const materials = sidebar.querySelector('.materials-section');
  if (materials) materials.after(...cards);
  else sidebar.append(...cards);

  attempt('Loading the annotations', refresh);
  const linkedView = hashQuery().get('view');
  const stopWaiting = linkedView
    ? whenDrawn(viewport, () =>
        attempt('Opening the saved view', async () =>
          restoreView(state, await getView(model.id, linkedView)),
        ),
      )
    : () => undefined;
  return () => {
    stopWaiting();
    annotate.dispose();
    pins.dispose();
    for (const card of cards) card.remove();
  };
}
