/**
 * The colours of compare mode, from a diff of two versions: each part of the newer version is painted by what
 * happened to it (added green, changed amber, unchanged a dim see-through grey) and each removed part of the older
 * one is drawn as a red ghost. Pure: no three.js, so the choice is tested on its own.
 */
import type { Material } from '../api/types.ts';
import type { PartChange, VersionDiff } from '../api/versions-api.ts';

/** What a diff says happened to a part between two versions. */
export type DiffState = 'added' | 'removed' | 'changed' | 'unchanged';

/** Every state, in the order the legend and the filter list them. */
export const DIFF_STATES = ['changed', 'added', 'removed', 'unchanged'] as const satisfies DiffState[];

/** A compare colour: sRGB channels 0–255 and an opacity 0–255 (255 opaque), as a material record holds them. */
export interface DiffColor {
  r: number;
  g: number;
  b: number;
  alpha: number;
}

/**
 * The colour of each state. Changed is an orange amber, redder than the selection tint (#ffb000), so a selected
 * unchanged part does not read as changed. Unchanged parts stay in sight for context but let the changes show
 * through them; removed parts are ghosts, faint enough not to hide what replaced them.
 */
export const DIFF_COLORS: Readonly<Record<DiffState, DiffColor>> = {
  added: { r: 20, g: 170, b: 60, alpha: 255 },
  changed: { r: 235, g: 120, b: 0, alpha: 255 },
  unchanged: { r: 150, g: 156, b: 166, alpha: 44 },
  removed: { r: 235, g: 40, b: 40, alpha: 120 },
};

/** Ids of the made-up material records compare mode paints with; negative, so they meet no stored material. */
const PAINT_IDS: Readonly<Record<DiffState, number>> = {
  added: -11,
  changed: -12,
  unchanged: -13,
  removed: -14,
};

/** What happened to one part, and for a changed part what about it changed. */
export interface PartDiffState {
  state: DiffState;
  name: string;
  what: PartChange[];
}

/** Every part the diff names, by group id: the newer version's parts and the older one's removed parts. */
export function diffStates(diff: VersionDiff): Map<string, PartDiffState> {
  const states = new Map<string, PartDiffState>();
  for (const part of diff.unchanged)
    states.set(part.group_id, { state: 'unchanged', name: part.name, what: [] });
  for (const part of diff.removed) states.set(part.group_id, { state: 'removed', name: part.name, what: [] });
  for (const part of diff.added) states.set(part.group_id, { state: 'added', name: part.name, what: [] });
  for (const part of diff.changed) {
    states.set(part.group_id, { state: 'changed', name: part.name, what: [...part.what] });
  }
  return states;
}

/** The group ids in `state`. */
export function groupsIn(states: Map<string, PartDiffState>, state: DiffState): Set<string> {
  return new Set([...states].filter(([, entry]) => entry.state === state).map(([groupId]) => groupId));
}

/** `#rrggbb` of a state's colour, for swatches and the legend. */
export function diffHex(state: DiffState): string {
  const { r, g, b } = DIFF_COLORS[state];
  return `#${[r, g, b].map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
}

/**
 * A material record of a state's colour: fully rough and without reflectance, so neither the lights' highlights nor
 * the room's reflections wash the hue out towards white, and with no ambient term for the same reason.
 */
export function diffMaterial(state: DiffState): Material {
  const { r, g, b, alpha } = DIFF_COLORS[state];
  return {
    id: PAINT_IDS[state],
    name: `Compare: ${state}`,
    diffuse_r: r,
    diffuse_g: g,
    diffuse_b: b,
    alpha,
    shininess: 0,
    specular_r: 0,
    specular_g: 0,
    specular_b: 0,
    ambient_r: 0,
    ambient_g: 0,
    ambient_b: 0,
    metallic: 0,
    roughness: 1,
    reflectance: 0,
  };
}

/**
 * The paint of the newer version's parts, the way bound materials are given to the view: one record per state,
 * shared by its parts. Removed parts are not in the newer version, so they get none (they are drawn as ghosts).
 */
export function diffPaint(states: Map<string, PartDiffState>): Map<string, Material> {
  const made = new Map<DiffState, Material>();
  const paint = new Map<string, Material>();
  for (const [groupId, { state }] of states) {
    if (state === 'removed') continue;
    const material = made.get(state) ?? diffMaterial(state);
    made.set(state, material);
    paint.set(groupId, material);
  }
  return paint;
}

/** A part's state in words, as the compare readout shows it: `changed: transform, material`. */
export function describeState(entry: PartDiffState): string {
  return entry.state === 'changed' && entry.what.length > 0
    ? `changed: ${entry.what.join(', ')}`
    : entry.state;
}
