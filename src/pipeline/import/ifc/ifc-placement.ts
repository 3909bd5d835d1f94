// Where an object's local placement puts its origin in the project's frame, read from the IFC lines themselves: a
// storey written without an Elevation (IfcOpenShell's IfcOpenHouse) still says its height through its placement.
import type { IfcAPI } from 'web-ifc';
import { rawArguments, refId, scalarOf } from './ifc-values.ts';

/** A rigid transform as a 3 × 3 rotation (columns x, y, z) and a translation. */
interface Frame {
  x: number[];
  y: number[];
  z: number[];
  origin: number[];
}

// Placements chain through their parents; real files nest a handful deep, a damaged one may loop.
const MAX_PLACEMENT_DEPTH = 64;

/**
 * The height (Z, in the project's length unit) of the origin of `placementId`, an `IfcLocalPlacement`, after all
 * the placements it is relative to; undefined when the chain is not one of local placements with 3D axes.
 */
export function placementElevation(api: IfcAPI, modelID: number, placementId: number): number | undefined {
  const chain: number[] = [];
  for (let at: number | undefined = placementId; at !== undefined;) {
    if (chain.includes(at) || chain.length >= MAX_PLACEMENT_DEPTH) return undefined;
    chain.push(at);
    at = refId(rawArguments(api, modelID, at)[0]);
  }
  let world: Frame | undefined;
  for (const id of chain.reverse()) {
    const axes = refId(rawArguments(api, modelID, id)[1]);
    const local = axes === undefined ? undefined : axisPlacement(api, modelID, axes);
    if (!local) return undefined;
    world = world ? compose(world, local) : local;
  }
  return world?.origin[2];
}

/** An `IfcAxis2Placement3D` (Location, Axis, RefDirection) as a frame; IFC's defaults for the absent axes. */
function axisPlacement(api: IfcAPI, modelID: number, id: number): Frame | undefined {
  const [location, axis, refDirection] = rawArguments(api, modelID, id);
  const origin = numbers(api, modelID, refId(location));
  if (origin?.length !== 3) return undefined;
  const z = normalize(numbers(api, modelID, refId(axis)) ?? [0, 0, 1]);
  if (!z) return undefined;
  const ref = normalize(numbers(api, modelID, refId(refDirection)) ?? [1, 0, 0]);
  const along = ref && dot(ref, z);
  // A reference direction along the axis names no X: the placement is damaged, its height unknown.
  const x = ref && along !== undefined ? normalize(ref.map((value, i) => value - along * z[i]!)) : undefined;
  if (!x) return undefined;
  return { x, y: cross(z, x), z, origin };
}

/** The numbers of a point's Coordinates or a direction's DirectionRatios (the first attribute of both). */
function numbers(api: IfcAPI, modelID: number, id: number | undefined): number[] | undefined {
  if (id === undefined) return undefined;
  const list = rawArguments(api, modelID, id)[0];
  if (!Array.isArray(list)) return undefined;
  const values = list.map((item) => scalarOf(item));
  return values.every((value) => typeof value === 'number') ? (values as number[]) : undefined;
}

/** `local` placed in `parent`'s frame. */
function compose(parent: Frame, local: Frame): Frame {
  const apply = (v: number[]) =>
    [0, 1, 2].map((i) => parent.x[i]! * v[0]! + parent.y[i]! * v[1]! + parent.z[i]! * v[2]!);
  const origin = apply(local.origin).map((value, i) => value + parent.origin[i]!);
  return { x: apply(local.x), y: apply(local.y), z: apply(local.z), origin };
}

function dot(a: number[], b: number[]): number {
  return a.reduce((sum, value, i) => sum + value * (b[i] ?? 0), 0);
}

function cross(a: number[], b: number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

/** The vector scaled to length 1 (padded to 3D), or undefined for one too short to have a direction. */
function normalize(v: number[]): number[] | undefined {
  const padded = [v[0] ?? 0, v[1] ?? 0, v[2] ?? 0];
  const length = Math.hypot(...padded);
  return length < 1e-9 ? undefined : padded.map((value) => value / length);
}
