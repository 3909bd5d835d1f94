// BCF coordinates are IFC's: metres with +Z up. A model's are glTF's: metres with +Y up, turned from IFC by the
// importer as x, z, -y. These turn points and directions between the two; negation and swaps are exact, so a
// value written and read back is the same double.

/** A point or direction. */
export type Vec3 = [number, number, number];

/** A model point or direction (+Y up) in BCF's frame (+Z up). */
export function toBcf([x, y, z]: readonly number[]): Vec3 {
  return [x!, -z!, y!];
}

/** A BCF point or direction (+Z up) in the model's frame (+Y up). */
export function fromBcf([x, y, z]: readonly number[]): Vec3 {
  // `0 - y` rather than `-y`: a zero stays +0, as it was before toBcf.
  return [x!, z!, 0 - y!];
}

/** a + b·scale. */
export function addScaled(a: readonly number[], b: readonly number[], scale: number): Vec3 {
  return [a[0]! + b[0]! * scale, a[1]! + b[1]! * scale, a[2]! + b[2]! * scale];
}

/** a − b. */
export function subtract(a: readonly number[], b: readonly number[]): Vec3 {
  return [a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!];
}

/** a · b. */
export function dot(a: readonly number[], b: readonly number[]): number {
  return a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
}

/** The vector's length. */
export function length(a: readonly number[]): number {
  return Math.hypot(a[0]!, a[1]!, a[2]!);
}

/** The vector scaled to length 1; undefined for a zero (or non-finite) vector. */
export function normalize(a: readonly number[]): Vec3 | undefined {
  const size = length(a);
  if (!(size > 0) || !Number.isFinite(size)) return undefined;
  return [a[0]! / size, a[1]! / size, a[2]! / size];
}

/** The centre of a part's stored bounds (`{min, max}` JSON). */
export function boundsCentre(bounds: string): Vec3 {
  const { min, max } = JSON.parse(bounds) as { min: Vec3; max: Vec3 };
  return [(min[0] + max[0]) / 2, (min[1] + max[1]) / 2, (min[2] + max[2]) / 2];
}

/** The diagonal of a part's stored bounds. */
export function boundsDiagonal(bounds: string): number {
  const { min, max } = JSON.parse(bounds) as { min: Vec3; max: Vec3 };
  return length(subtract(max, min));
}
