// OBJ has no instancing: a modelling tool writes every copy of a bolt or a window with its vertices where that copy
// stands. Parts whose triangles are another part's moved, and nothing else, share one mesh here, each placed by its
// node's translation, so 100,000 copies of 50 shapes are 50 meshes rather than 100,000 meshes, primitives and
// accessors in the document (and the levels draw them as instances, instance-parts.ts).
import { createHash } from 'node:crypto';
import type { Mesh, Node } from '@gltf-transform/core';
import type { CornerArrays } from './obj-corners.ts';

/** One primitive of a part as read: its material's name and its own vertex arrays. */
export interface PartPrimitive {
  material: string;
  arrays: CornerArrays;
}

/** A part met first with the key of its triangles, whose mesh later copies share. */
interface FirstCopy {
  mesh: Mesh;
  node: Node;
  offset: [number, number, number];
  primitives: readonly PartPrimitive[];
  /** Whether its positions were already moved by its offset and its node translated by it. */
  moved: boolean;
}

/**
 * Finds parts that repeat an earlier part moved: the same materials, normals, texture coordinates, colours and
 * triangles, and positions that differ by one offset to within `step` (the file's own precision, a few units in the
 * last place of its largest coordinate: a copy far from the origin holds its corners less exactly than one near it).
 * Each is given the mesh of the first such part, its node translated by its low corner and the mesh's positions made
 * relative to it; a part met only once keeps its own mesh and its vertices where the file put them.
 */
export class RepeatedPartMeshes {
  private readonly firsts = new Map<string, FirstCopy>();
  /** Parts that took the mesh of an earlier one. */
  shared = 0;

  /** `step`: how far apart two relative positions may be and still be one (see {@link sharingStep}). */
  constructor(private readonly step: number) {}

  /** The mesh for part `node` of `primitives`: an earlier copy's (and `node` translated), or `build()`'s. */
  meshFor(node: Node, primitives: readonly PartPrimitive[], build: () => Mesh): Mesh {
    const offset = lowCorner(primitives, this.step);
    if (!offset) return build();
    const key = repeatKey(primitives, offset, this.step);
    const first = this.firsts.get(key);
    if (!first) {
      const mesh = build();
      this.firsts.set(key, { mesh, node, offset, primitives, moved: false });
      return mesh;
    }
    if (!sameRelativeTriangles(first, primitives, offset, this.step)) return build();
    if (!first.moved) {
      for (const { arrays } of first.primitives) moveBy(arrays.positions, first.offset);
      first.node.setTranslation(first.offset);
      first.moved = true;
    }
    node.setTranslation(offset);
    this.shared++;
    return first.mesh;
  }
}

/** Units in the last place of a file's largest coordinate that two copies' relative corners may differ by. */
const STEP_ULPS = 4;
/** The largest step, as a share of a part's size, at which it may still share: past it, it keeps its own mesh. */
const MOST_STEP_OF_SIZE = 2 ** -8;

/**
 * The step of a file whose positions are `positions`: the power of two at least {@link STEP_ULPS} single-precision
 * units in the last place of its largest absolute coordinate.
 */
export function sharingStep(positions: Float32Array): number {
  let largest = 0;
  for (let i = 0; i < positions.length; i++) {
    const value = Math.abs(positions[i]);
    if (value > largest) largest = value;
  }
  // A float's unit in the last place is 2^(exponent − 23).
  const exponent = largest > 0 ? Math.floor(Math.log2(largest)) : -126;
  return 2 ** (Math.max(exponent, -126) - 23) * STEP_ULPS;
}

/** The lowest x, y and z of a part's positions; undefined for a part too small for `step` or not finite. */
function lowCorner(primitives: readonly PartPrimitive[], step: number): [number, number, number] | undefined {
  const low: [number, number, number] = [Infinity, Infinity, Infinity];
  const high: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (const { arrays } of primitives) {
    const positions = arrays.positions;
    for (let i = 0; i < positions.length; i++) {
      const axis = i % 3;
      if (positions[i] < low[axis]) low[axis] = positions[i];
      if (positions[i] > high[axis]) high[axis] = positions[i];
    }
  }
  if (!low.every(Number.isFinite) || !high.every(Number.isFinite)) return undefined;
  const size = Math.max(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
  return step <= size * MOST_STEP_OF_SIZE ? low : undefined;
}

/** A digest of everything a part's mesh holds, its positions relative to `offset` on the grid of `step`. */
function repeatKey(primitives: readonly PartPrimitive[], offset: readonly number[], step: number): string {
  const hash = createHash('sha1');
  for (const { material, arrays } of primitives) {
    hash.update(`${material}\0${arrays.positions.length}\0${arrays.indices.length}\0`);
    hash.update(bytes(onGrid(arrays.positions, offset, step)));
    for (const extra of [arrays.normals, arrays.uvs, arrays.colors]) {
      hash.update(extra ? `${extra.length}\0` : '-\0');
      if (extra) hash.update(bytes(extra));
    }
    hash.update(bytes(arrays.indices));
  }
  return hash.digest('base64');
}

/** Whether a part's primitives hold what the first copy held (a digest match is not taken alone). */
function sameRelativeTriangles(
  first: FirstCopy,
  primitives: readonly PartPrimitive[],
  offset: readonly number[],
  step: number,
): boolean {
  if (first.primitives.length !== primitives.length) return false;
  const firstOffset = first.moved ? [0, 0, 0] : first.offset;
  return primitives.every(({ material, arrays }, index) => {
    const theirs = first.primitives[index];
    return (
      material === theirs.material &&
      equalBytes(
        onGrid(arrays.positions, offset, step),
        onGrid(theirs.arrays.positions, firstOffset, step),
      ) &&
      equalBytes(arrays.indices, theirs.arrays.indices) &&
      equalOptional(arrays.normals, theirs.arrays.normals) &&
      equalOptional(arrays.uvs, theirs.arrays.uvs) &&
      equalOptional(arrays.colors, theirs.arrays.colors)
    );
  });
}

/** Positions relative to `offset`, as whole numbers of `step`. */
function onGrid(positions: Float32Array, offset: readonly number[], step: number): Int32Array {
  const grid = new Int32Array(positions.length);
  for (let i = 0; i < positions.length; i++) grid[i] = Math.round((positions[i] - offset[i % 3]) / step);
  return grid;
}

function moveBy(positions: Float32Array, offset: readonly number[]): void {
  for (let i = 0; i < positions.length; i++) positions[i] = positions[i] - offset[i % 3];
}

function bytes(array: Float32Array | Uint32Array | Int32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function equalOptional(a: Float32Array | undefined, b: Float32Array | undefined): boolean {
  return a === undefined || b === undefined ? a === b : equalBytes(a, b);
}

function equalBytes(
  a: Float32Array | Uint32Array | Int32Array,
  b: Float32Array | Uint32Array | Int32Array,
): boolean {
  return Buffer.compare(bytes(a), bytes(b)) === 0;
}
