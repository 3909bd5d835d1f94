/**
 * One section plane per axis, each keeping the part of the model below its position on that axis; and the planes
 * of a saved view that lie along no axis (made by another viewer, read from BCF), kept as they were saved.
 */
import { Box3, Plane, Vector3 } from 'three';

/** The three axes a section can cut along. */
export type Axis = 'x' | 'y' | 'z';
/** Every axis, in order. */
export const AXES: readonly Axis[] = ['x', 'y', 'z'];

/** A plane as a saved view stores it: its normal and constant. */
export interface SectionPlaneValues {
  normal: readonly number[];
  constant: number;
}

/** Share of the extent the slider's ends reach beyond the model on each side. */
const END_PAD = 1e-3;

const NORMALS: Record<Axis, Vector3> = {
  x: new Vector3(-1, 0, 0),
  y: new Vector3(0, -1, 0),
  z: new Vector3(0, 0, -1),
};

/** The enabled planes and their positions as fractions 0–1 of the model's extent on each axis. */
export class SectionPlanes {
  private readonly planes = new Map<Axis, { plane: Plane; fraction: number }>();
  private free: Plane[] = [];
  private bounds = new Box3();

  /** The box the fractions are measured in (the model's bounds). */
  setBounds(bounds: Box3): void {
    this.bounds = bounds.clone();
    for (const [axis, entry] of this.planes) this.place(axis, entry.plane, entry.fraction);
  }

  /** Turns the plane of `axis` on at `fraction` of the extent, moves it, or (null) turns it off. */
  set(axis: Axis, fraction: number | null): void {
    if (fraction === null) {
      this.planes.delete(axis);
      return;
    }
    const entry = this.planes.get(axis) ?? { plane: new Plane(NORMALS[axis].clone(), 0), fraction };
    entry.fraction = Math.min(Math.max(fraction, 0), 1);
    this.place(axis, entry.plane, entry.fraction);
    this.planes.set(axis, entry);
  }

  /**
   * Cuts with these planes too, beside the axis planes ([] for none). A point p is kept where normal·p + constant
   * ≥ 0, as for the axis planes; a normal that is not of unit length is scaled with its constant.
   */
  setFree(planes: readonly SectionPlaneValues[]): void {
    this.free = planes
      .filter((plane) => plane.normal.some((component) => component !== 0))
      .map(({ normal: [x, y, z], constant }) => new Plane().setComponents(x, y, z, constant).normalize());
  }

  /** How many planes along no axis cut now. */
  get freeCount(): number {
    return this.free.length;
  }

  /** The active planes, for the renderer's global clipping. */
  active(): Plane[] {
    return [...[...this.planes.values()].map((entry) => entry.plane), ...this.free];
  }

  private place(axis: Axis, plane: Plane, fraction: number): void {
    const { min, max } = sliderExtent(this.bounds, axis);
    // A point p is kept when normal·p + constant >= 0: with normal -axis, when p[axis] <= the cut.
    plane.constant = min + (max - min) * fraction;
  }
}

/** Where a slider's ends lie on `axis`: a hair outside the model, so at 0 or 1 no face sits half clipped. */
function sliderExtent(bounds: Box3, axis: Axis): { min: number; max: number } {
  if (bounds.isEmpty()) return { min: 0, max: 0 };
  const pad = (bounds.max[axis] - bounds.min[axis]) * END_PAD;
  return { min: bounds.min[axis] - pad, max: bounds.max[axis] + pad };
}

/** The axis whose section plane has this normal (the planes keep what lies below: normal -axis), or null. */
export function axisOfNormal(normal: readonly number[]): Axis | null {
  return AXES.find((axis) => new Vector3(...normal).distanceTo(NORMALS[axis]) < 1e-6) ?? null;
}

/** The slider fraction (0–1) that puts the plane of `axis` at `constant`, within `bounds`. */
export function sectionFraction(bounds: Box3, axis: Axis, constant: number): number {
  const { min, max } = sliderExtent(bounds, axis);
  return max > min ? Math.min(Math.max((constant - min) / (max - min), 0), 1) : 0.5;
}
