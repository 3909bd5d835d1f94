/**
 * Two measures on top of the point-to-point one (measure-controls.ts), drawn with the same markers and line:
 * **Distance**, the shortest distance between two parts picked in the view, and **Angle**, the angle at the
 * middle one of three points picked on the model. Both read in the model's unit; only one of them takes the view's
 * clicks at a time.
 */
import type { Intersection } from 'three';
import { h } from '../ui/dom.ts';
import { formatLength, modelUnit, type ViewedModel } from '../view-tools/model-lengths.ts';
import { partGap } from '../view-tools/part-distance.ts';
import type { MeasurePoint } from '../viewer/measure-tool.ts';
import type { WorkspaceViewport } from './workspace-viewport.ts';
import { groupIdOf } from '../viewer/part-meshes.ts';
import { toggleButton } from './view-toolbar-button.ts';

/** The two toggles, and a way to switch both off. */
export interface PartMeasures {
  buttons: HTMLElement[];
  /** Switches off whichever measure is on; true when one was. */
  cancel: () => boolean;
}

/** Builds Distance and Angle for `view`, writing into `readout` (a line of its own). */
export function createPartMeasures(
  model: ViewedModel,
  view: WorkspaceViewport,
  readout: HTMLElement,
): PartMeasures {
  const unit = modelUnit(model);
  const line = h('div', { class: 'readout-line', 'aria-live': 'polite' });
  readout.append(line);
  const name = (groupId: string) => view.parts.get(groupId)?.[0]?.name || groupId;

  let picked: string[] = [];
  let points: MeasurePoint[] = [];
  const stop = (button: HTMLButtonElement): void => {
    if (button.getAttribute('aria-pressed') === 'true') button.click();
  };

  const distance = toggleButton(
    'Distance',
    (on) => {
      picked = [];
      delete distance.dataset.distance;
      view.showMeasure([]);
      if (on) stop(angle);
      view.setSurfaceClick(on ? pickPart : null);
      line.textContent = on ? 'Distance: click the first part.' : '';
    },
    'The shortest distance between two parts: click one, then the other',
  );
  const pickPart = (hit: Intersection): void => {
    const groupId = groupIdOf(hit.object);
    if (groupId === null) return;
    picked = picked.length >= 2 ? [groupId] : [...picked, groupId];
    if (picked.length === 1) {
      delete distance.dataset.distance;
      view.showMeasure([]);
      line.textContent = `Distance from ${name(groupId)}: click the second part.`;
      return;
    }
    const [a, b] = picked as [string, string];
    const gap = partGap(view.parts.get(a) ?? [], view.parts.get(b) ?? []);
    if (!gap) {
      line.textContent = 'These parts draw no surface to measure.';
      return;
    }
    // Full precision, in metres, for scripts and tests; the readout rounds and speaks the model's unit.
    distance.dataset.distance = String(gap.distance);
    view.showMeasure(gap.distance > 0 ? [gap.from, gap.to] : [gap.from]);
    line.replaceChildren(
      h('strong', {}, `Distance ${formatLength(gap.distance, unit)}`),
      ` between ${name(a)} and ${name(b)}`,
    );
  };

  const angle = toggleButton(
    'Angle',
    (on) => {
      points = [];
      delete angle.dataset.degrees;
      view.showMeasure([]);
      if (on) stop(distance);
      view.setMeasuring(on ? placePoint : null);
      line.textContent = on ? 'Angle: click three points; the angle is at the second.' : '';
    },
    'The angle at a corner: click a point on one side, the corner, then a point on the other side',
  );
  const placePoint = (point: MeasurePoint): void => {
    points = points.length >= 3 ? [point] : [...points, point];
    view.showMeasure(points.map((entry) => entry.position));
    if (points.length < 3) {
      delete angle.dataset.degrees;
      line.textContent = `Angle: ${points.length} of 3 points placed.`;
      return;
    }
    const [a, corner, b] = points.map((entry) => entry.position);
    const degrees = (a!.clone().sub(corner!).angleTo(b!.clone().sub(corner!)) * 180) / Math.PI;
    angle.dataset.degrees = String(degrees);
    line.replaceChildren(h('strong', {}, `Angle ${degrees.toFixed(2)}°`));
  };

  return {
    buttons: [distance, angle],
    cancel: () => {
      const on = [distance, angle].some((button) => button.getAttribute('aria-pressed') === 'true');
      stop(distance);
      stop(angle);
      return on;
    },
  };
}
