/** Annotations as pins over a view (model page and share page alike), numbered like the list, and flying to one. */
import { Vector3 } from 'three';
import type { Annotation } from '../api/review-api.ts';
import { flyTo } from '../viewer/camera-moves.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { PinOverlay } from '../viewer/pin-overlay.ts';
import { pinLabel } from './annotations-list.ts';

/** Flying to a pin ends no further from it than this share of the model's diagonal. */
const FLY_DISTANCE_SHARE = 0.6;

/** The pins of one view. */
export interface AnnotationPins {
  show: (annotations: Annotation[]) => void;
  /** Flies the camera to face the annotation and marks its pin. */
  flyTo: (annotation: Annotation) => void;
  dispose: () => void;
}

/**
 * Lays pins over `view` inside its container `viewport`; `onChoose` gets the id of a clicked pin, `isPartShown`
 * says whether a part is drawn (pins of hidden parts hide with them).
 */
export function showAnnotations(
  view: ModelViewport,
  viewport: HTMLElement,
  onChoose: (id: string) => void,
  isPartShown?: (groupId: string) => boolean,
): AnnotationPins {
  const overlay = new PinOverlay(view, onChoose, isPartShown);
  viewport.append(overlay.element);
  return {
    show: (annotations) => {
      overlay.setPins(
        annotations.map((annotation, index) => ({
          id: annotation.id,
          groupId: annotation.group_id,
          position: annotation.position,
          label: pinLabel(index),
          title: annotation.text,
          resolved: annotation.resolved,
        })),
      );
      viewport.dataset.pins = String(annotations.length);
    },
    flyTo: (annotation) => {
      overlay.setActive(annotation.id);
      const bounds = view.modelBounds;
      const diagonal = bounds.isEmpty() ? 1 : bounds.getSize(new Vector3()).length();
      flyTo(view, annotation.position, annotation.normal, diagonal * FLY_DISTANCE_SHARE);
    },
    dispose: () => overlay.dispose(),
  };
}
