/**
 * The Annotate switch of the model page: while it is on, a click on a part opens a small form at that spot, and
 * its text becomes an annotation pinned to the surface there (position and outward normal in model metres).
 */
import { Matrix3, Vector3, type Intersection } from 'three';
import type { NewAnnotation, Triple } from '../api/review-api.ts';
import { h } from '../ui/dom.ts';
import { notifyError } from '../ui/notify.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { groupIdOf } from '../viewer/part-meshes.ts';
import { screenPoint } from '../viewer/pin-overlay.ts';
import type { WriteAccess } from './write-access.ts';

/** The switch and its clean-up. */
export interface AnnotateMode {
  button: HTMLButtonElement;
  dispose: () => void;
}

/** The hit's face normal in the scene's frame, turned towards the camera (a click may land on a back face). */
export function outwardNormal(hit: Intersection, viewDirection: Vector3): Vector3 {
  const local = hit.face?.normal ?? new Vector3(0, 1, 0);
  const normal = local
    .clone()
    .applyMatrix3(new Matrix3().getNormalMatrix(hit.object.matrixWorld))
    .normalize();
  return normal.dot(viewDirection) > 0 ? normal.negate() : normal;
}

const triple = (vector: Vector3): Triple => [vector.x, vector.y, vector.z];

/** Builds the switch for `view` (whose container is `viewport`); `save` posts a new annotation. */
export function createAnnotateMode(
  view: ModelViewport,
  viewport: HTMLElement,
  access: WriteAccess,
  save: (draft: NewAnnotation) => Promise<void>,
): AnnotateMode {
  const button = h(
    'button',
    { type: 'button', 'aria-pressed': 'false', class: 'annotate-toggle' },
    'Annotate',
  );
  let form: HTMLFormElement | null = null;
  const closeForm = (): void => {
    form?.remove();
    form = null;
  };

  const openForm = (hit: Intersection): void => {
    closeForm();
    const groupId = groupIdOf(hit.object);
    if (!groupId) {
      notifyError('This surface belongs to no part, so it cannot carry an annotation.');
      return;
    }
    const { camera } = view.rig;
    const normal = outwardNormal(hit, camera.getWorldDirection(new Vector3()));
    const spot = screenPoint(hit.point, camera, view.canvas.clientWidth, view.canvas.clientHeight);
    const text = h('textarea', { rows: 3, maxLength: 2000, 'aria-label': 'Annotation text', required: true });
    const submit = h('button', { type: 'submit', class: 'primary' }, 'Add');
    const draft: NewAnnotation = {
      group_id: groupId,
      position: triple(hit.point),
      normal: triple(normal),
      text: '',
    };
    const opened = h(
      'form',
      { class: 'annotation-form' },
      text,
      h(
        'div',
        { class: 'button-row' },
        submit,
        h('button', { type: 'button', onclick: closeForm }, 'Cancel'),
      ),
    );
    opened.style.left = `${Math.min(spot?.x ?? 0, Math.max(view.canvas.clientWidth - 260, 0))}px`;
    opened.style.top = `${Math.min(spot?.y ?? 0, Math.max(view.canvas.clientHeight - 130, 0))}px`;
    opened.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') closeForm();
    });
    opened.addEventListener('submit', (event) => {
      event.preventDefault();
      const words = text.value.trim();
      if (!words) return;
      submit.disabled = true;
      access.attempt('Adding the annotation', async () => {
        try {
          await save({ ...draft, text: words });
          if (form === opened) closeForm();
        } finally {
          submit.disabled = false;
        }
      });
    });
    viewport.append(opened);
    form = opened;
    text.focus();
  };

  const setOn = (on: boolean): void => {
    button.setAttribute('aria-pressed', String(on));
    view.setSurfaceClick(on ? openForm : null);
    if (!on) closeForm();
  };
  button.addEventListener('click', () => setOn(button.getAttribute('aria-pressed') !== 'true'));
  const stopWatching = access.watch((allowed) => {
    button.disabled = !allowed;
    if (!allowed) setOn(false);
  });
  return {
    button,
    dispose: () => {
      stopWatching();
      setOn(false);
    },
  };
}
