/**
 * The state a saved view holds, read from and written back to the model page: camera, hidden parts, section
 * planes, x-ray and level of detail. Each tool keeps its own controls; this only asks them.
 */
import type { NewSavedView, SavedView, Triple } from '../api/review-api.ts';
import { applyCamera, captureCamera } from '../viewer/camera-moves.ts';
import type { ModelViewport } from '../viewer/model-viewport.ts';
import { axisOfNormal, sectionFraction, type Axis } from '../viewer/section-planes.ts';
import { checkedLevel, chooseLevel } from './lod-switcher.ts';
import { restoreSections } from './section-controls.ts';
import { pressXray, xrayPressed } from './visibility-tools.ts';

/** What of the model page a saved view reads and sets. */
export interface ViewState {
  view: ModelViewport;
  /** Every part's group id. */
  groupIds: string[];
  hidden: () => Set<string>;
  setHidden: (next: Set<string>) => void;
  /** The rows of tools the state lives in (null where the page has none, as a model with one level has no LOD switcher). */
  sectionControls: HTMLElement | null;
  visibilityTools: HTMLElement | null;
  lodSwitcher: HTMLElement | null;
}

/**
 * The view as it is now, named `name`. The parts not drawn are stored as `hidden`, or, when fewer parts are
 * drawn than hidden, as the `isolated` ones: both restore the same, and the shorter list reads better.
 */
export function captureView(state: ViewState, name: string): NewSavedView {
  const hidden = [...state.hidden()];
  const shown = state.groupIds.filter((id) => !state.hidden().has(id));
  const isolate = hidden.length > 0 && shown.length < hidden.length;
  const level = state.lodSwitcher ? checkedLevel(state.lodSwitcher) : 0;
  return {
    name,
    camera: captureCamera(state.view.rig),
    hidden: isolate ? [] : hidden,
    isolated: isolate ? shown : [],
    sections: state.view.activeSections().map((plane) => ({
      normal: [plane.normal.x, plane.normal.y, plane.normal.z] as Triple,
      constant: plane.constant,
    })),
    xray: state.visibilityTools ? xrayPressed(state.visibilityTools) : false,
    level: (level ?? 0) as NewSavedView['level'],
  };
}

/**
 * Brings a saved view back. Returns what could not be restored, in words (a level the model does not have,
 * sections on a page without the section tool), for the page to tell the person. Planes along no axis cut as
 * they were saved, shown by the section tool as such.
 */
export function applyView(state: ViewState, saved: SavedView): string[] {
  const missed: string[] = [];
  if (state.lodSwitcher && !chooseLevel(state.lodSwitcher, saved.level)) missed.push(`LOD ${saved.level}`);
  const isolated = new Set(saved.isolated);
  const hidden = new Set(saved.hidden);
  if (isolated.size > 0) for (const id of state.groupIds) if (!isolated.has(id)) hidden.add(id);
  state.setHidden(hidden);
  if (state.visibilityTools) pressXray(state.visibilityTools, saved.xray);
  const bounds = state.view.modelBounds;
  const fractions: Partial<Record<Axis, number>> = {};
  const free: SavedView['sections'] = [];
  for (const section of saved.sections) {
    const axis = axisOfNormal(section.normal);
    // A second plane on one axis cannot be a slider's: it cuts as a free plane.
    if (axis && fractions[axis] === undefined)
      fractions[axis] = sectionFraction(bounds, axis, section.constant);
    else free.push(section);
  }
  if (state.sectionControls) restoreSections(state.sectionControls, state.view, fractions, free);
  else if (saved.sections.length > 0) missed.push('the section planes');
  applyCamera(state.view, saved.camera);
  return missed;
}
