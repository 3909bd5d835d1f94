/** The measure tool's toggle and readout: two clicks on the model give the distance between them in metres. */
import type { Vector3 } from 'three';
import { h } from '../ui/dom.ts';
import type { MeasurePoint } from '../viewer/measure-tool.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';

/** A length in metres, with millimetres alongside below one metre. */
export function formatMetres(metres: number): string {
  const text = `${metres.toPrecision(6).replace(/\.?0+$/, '')} m`;
  return metres < 1 ? `${text} (${(metres * 1000).toFixed(2)} mm)` : text;
}

function formatPoint(point: Vector3): string {
  return `(${[point.x, point.y, point.z].map((value) => value.toFixed(5)).join(', ')})`;
}

/** The toggle, readout and a way to cancel (Esc); the view places points while measuring is on. */
export interface MeasureControls {
  /** The toggle, carrying `data-points`, `data-distance`, `data-from` and `data-to`. */
  element: HTMLElement;
  /** The readout, placed apart from the toggle (under the view, where its changing height moves nothing). */
  readout: HTMLElement;
  /** Drops the points; returns true when there were any, so Esc does one thing at a time. */
  cancel: () => boolean;
}

/** Builds the measure controls bound to `view`. */
export function createMeasureControls(view: ModelViewport): MeasureControls {
  let points: MeasurePoint[] = [];
  const toggle = h('button', { type: 'button', 'aria-pressed': 'false' }, 'Measure');
  const readout = h('output', { class: 'measure-readout', 'aria-live': 'polite' });
  const element = h('div', { class: 'measure-controls' }, toggle);

  const show = (): void => {
    view.showMeasure(points.map((point) => point.position));
    const on = toggle.getAttribute('aria-pressed') === 'true';
    element.dataset.points = String(points.length);
    if (!on) readout.textContent = '';
    else if (points.length === 0) readout.textContent = 'Click a point on the model.';
    else if (points.length === 1)
      readout.textContent = `From ${formatPoint(points[0].position)} m — click a second point.`;
    else {
      const [a, b] = points;
      const distance = a.position.distanceTo(b.position);
      // Full precision for scripts and tests; the readout rounds.
      element.dataset.distance = String(distance);
      element.dataset.from = JSON.stringify(a.position.toArray());
      element.dataset.to = JSON.stringify(b.position.toArray());
      readout.replaceChildren(
        h('strong', { class: 'measure-distance' }, formatMetres(distance)),
        h(
          'small',
          { class: 'measure-points' },
          `${formatPoint(a.position)} → ${formatPoint(b.position)} m${a.vertex && b.vertex ? ', both on vertices' : ''}`,
        ),
      );
    }
  };

  const place = (point: MeasurePoint): void => {
    // A third click starts the next measurement.
    points = points.length >= 2 ? [point] : [...points, point];
    delete element.dataset.distance;
    show();
  };

  toggle.addEventListener('click', () => {
    const on = toggle.getAttribute('aria-pressed') !== 'true';
    toggle.setAttribute('aria-pressed', String(on));
    points = [];
    delete element.dataset.distance;
    view.setMeasuring(on ? place : null);
    show();
  });

  return {
    element,
    readout,
    cancel: () => {
      if (points.length === 0) return false;
      points = [];
      delete element.dataset.distance;
      show();
      return true;
    },
  };
}
