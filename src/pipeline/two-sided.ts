import { Primitive } from '@gltf-transform/core';
import type { Accessor, Document, Material } from '@gltf-transform/core';
import type { MeshoptSimplifier } from 'meshoptimizer';
import type { StepContext } from './types.ts';

/** Step name used in logs. */
export const NAME = 'two-sided';

/** Options of {@link markTwoSided}. */
export interface TwoSidedOptions {
  /** meshoptimizer's simplifier (for its position remap), awaited `ready` before use. */
  simplifier: typeof MeshoptSimplifier;
  /**
   * Primitives with more triangles are taken as open without checking: the check holds 8 bytes per corner, and a
   * surface rendered from both sides is never wrong, only slower to draw.
   */
  maxCheckedTriangles: number;
}

/** Defaults for {@link TwoSidedOptions} (the simplifier must be given). */
export const TWO_SIDED_DEFAULTS: Omit<TwoSidedOptions, 'simplifier'> = { maxCheckedTriangles: 2_000_000 };

/**
 * Makes triangles render from both sides where the source did not say otherwise: a primitive without a material
 * (STL, PLY) gets a shared default material (glTF's own defaults) marked `doubleSided`, and one whose surface is
 * not closed gets its material marked so (a copy when closed primitives share it). glTF culls back faces by
 * default, so the inside of an open sphere or half of a Möbius band would vanish in a viewer. Closed surfaces
 * keep their material as it is. Returns how many primitives changed.
 */
export async function markTwoSided(
  document: Document,
  options: Partial<TwoSidedOptions> & Pick<TwoSidedOptions, 'simplifier'>,
  context: StepContext,
): Promise<number> {
  const settings: TwoSidedOptions = { ...TWO_SIDED_DEFAULTS, ...options };
  await settings.simplifier.ready;
  let fallback: Material | undefined;
  const open = new Map<Material, Primitive[]>();
  const closedLists: ClosedLists = new Map();
  let changed = 0;
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const mode = primitive.getMode();
      if (mode !== Primitive.Mode.TRIANGLES || !primitive.getAttribute('POSITION')) continue;
      const material = primitive.getMaterial();
      if (!material) {
        fallback ??= document.createMaterial('Default').setDoubleSided(true);
        primitive.setMaterial(fallback);
        changed++;
      } else if (!material.getDoubleSided() && !isClosed(primitive, settings, closedLists)) {
        // Pushed, not spread into a new list: thousands of open parts share one material.
        const list = open.get(material);
        if (list) list.push(primitive);
        else open.set(material, [primitive]);
      }
    }
  }
  for (const [material, primitives] of open) {
    // Any other user (a closed primitive) keeps the single-sided original.
    const users = material.listParents().filter((parent) => parent instanceof Primitive);
    const twoSided = users.length === primitives.length ? material : material.clone();
    twoSided.setDoubleSided(true);
    for (const primitive of primitives) primitive.setMaterial(twoSided);
    changed += primitives.length;
  }
  if (changed > 0) context.logger.debug(`${NAME}: ${changed} primitives render from both sides`);
  return changed;
}

/**
 * Whether each index list met so far closes a surface, for primitives whose vertices all lie apart: then closure
 * depends on the list alone, and parts of one topology (every box of 100,000) are checked once.
 */
type ClosedLists = Map<Accessor, boolean>;

/** Most vertices a primitive may have for its positions to be told apart here, pair by pair, without the remap. */
const PAIRWISE_VERTICES = 64;

/**
 * Whether every edge of a triangle list, its vertices welded by position, is met as often in one direction as in
 * the other: a closed, consistently wound surface, whose back faces a viewer never sees.
 */
function isClosed(primitive: Primitive, settings: TwoSidedOptions, closedLists: ClosedLists): boolean {
  const position = primitive.getAttribute('POSITION')!;
  const array = position.getArray();
  const indexList = primitive.getIndices();
  const count = indexList?.getCount() ?? position.getCount();
  if (!(array instanceof Float32Array) || count / 3 > settings.maxCheckedTriangles) return false;
  const vertices = position.getCount();
  const apart = indexList !== null && vertices <= PAIRWISE_VERTICES && allApart(array, vertices);
  const known = apart ? closedLists.get(indexList) : undefined;
  if (known !== undefined) return known;
  const remap = apart ? undefined : settings.simplifier.generatePositionRemap(array, 3);
  const indices = indexList?.getArray();
  const vertex = (i: number) => {
    const index = indices ? indices[i] : i;
    return remap ? remap[index] : index;
  };
  // Each directed edge as (smaller, larger) × 2 + direction: sorted, an edge's two directions lie side by side.
  const keys = new Float64Array(count - (count % 3));
  for (let t = 0; t < keys.length; t += 3) {
    for (let corner = 0; corner < 3; corner++) {
      const a = vertex(t + corner);
      const b = vertex(t + ((corner + 1) % 3));
      // A collapsed edge (a degenerate triangle's) bounds nothing; -1 sorts it first, where it is skipped.
      keys[t + corner] = a === b ? -1 : (Math.min(a, b) * vertices + Math.max(a, b)) * 2 + (a < b ? 0 : 1);
    }
  }
  const closed = balanced(keys.sort());
  if (apart) closedLists.set(indexList, closed);
  return closed;
}

/**
 * Whether no two of the first `vertices` positions are alike, by value (0 and -0 alike) or both not numbers: apart
 * whichever way the remap compares them. Alike ones are left to the remap.
 */
function allApart(array: Float32Array, vertices: number): boolean {
  const alike = (i: number, j: number) =>
    array[i] === array[j] || (array[i] !== array[i] && array[j] !== array[j]);
  for (let a = 1; a < vertices; a++) {
    for (let b = 0; b < a; b++) {
      if (alike(a * 3, b * 3) && alike(a * 3 + 1, b * 3 + 1) && alike(a * 3 + 2, b * 3 + 2)) return false;
    }
  }
  return true;
}

/** Whether each edge of sorted keys is met as often in one direction as in the other. */
function balanced(keys: Float64Array): boolean {
  let i = 0;
  while (i < keys.length && keys[i] < 0) i++;
  while (i < keys.length) {
    const edge = Math.floor(keys[i] / 2);
    let balance = 0;
    for (; i < keys.length && Math.floor(keys[i] / 2) === edge; i++) balance += keys[i] % 2 === 0 ? 1 : -1;
    if (balance !== 0) return false;
  }
  return true;
}
