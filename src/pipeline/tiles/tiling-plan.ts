import type { Document, Primitive } from '@gltf-transform/core';
import type { PiecedTriangles, TrianglePieces } from '../lods/pieced-lods.ts';
import type { SimplifiedTile } from './simplify-tile.ts';
import { listLeaves, splitTriangles } from './split-tree.ts';
import type { SplitNode, SplitTrianglesOptions } from './split-tree.ts';
import { collectTriangles } from './triangle-soup.ts';
import type { SoupPlacement, TriangleSoup } from './triangle-soup.ts';
import { cornersGeometry } from './tile-geometry.ts';
import type { VertexSlots } from './tile-geometry.ts';
import type { StepContext } from '../types.ts';

/**
 * A model's tiling, settled before its levels of detail are made: its soup, the tree over it, and each
 * primitive's triangles by leaf, so the levels can be simplified leaf by leaf and hand the tiler each leaf's
 * coarse geometry (see {@link coarseLeaves}).
 */
export interface TilingPlan {
  soup: TriangleSoup;
  tree: SplitNode;
  /** The leaf of each soup triangle, leaves numbered as {@link listLeaves} lists them. */
  leafOf: Uint32Array;
  leafCount: number;
  placements: SoupPlacement[];
  /**
   * Pieces for the levels: the leaves of the triangles of each primitive placed once in the soup (a mesh drawn by
   * several nodes is simplified once for all of them, so no one placement's leaves can be its pieces).
   */
  pieces: Map<Primitive, TrianglePieces>;
  /** The leaf of each of a primitive's pieces, where they are numbered on their own rather than by leaf. */
  pieceLeaves: Map<Primitive, Uint32Array>;
}

/** Collects a document's soup (as it is: LOD 0) and splits it into the tiler's tree. */
export function planTiling(
  document: Document,
  split: SplitTrianglesOptions,
  context: StepContext,
): TilingPlan {
  const placements: SoupPlacement[] = [];
  const soup = collectTriangles(document, context, (placement) => placements.push(placement));
  const tree = splitTriangles(soup, split);
  const leaves = listLeaves(tree);
  const leafOf = new Uint32Array(soup.indices.length / 3);
  leaves.forEach((leaf, index) => {
    for (const triangle of leaf.triangles) leafOf[triangle] = index;
  });
  const pieces = new Map<Primitive, TrianglePieces>();
  const pieceLeaves = new Map<Primitive, Uint32Array>();
  const scratch = new Int32Array(leaves.length).fill(-1);
  for (const placement of placedOnce(placements)) {
    const { primitive, firstTriangle, triangles } = placement;
    const leafIds = leafOf.subarray(firstTriangle, firstTriangle + triangles);
    // A primitive of fewer triangles than there are leaves has its pieces numbered on their own: a model of many
    // small parts would otherwise keep a leaf-sized table for each of them.
    if (triangles >= leaves.length) pieces.set(primitive, { pieceOf: leafIds, pieceCount: leaves.length });
    else {
      const { pieceOf, leafOfPiece } = numberPieces(leafIds, scratch);
      pieces.set(primitive, { pieceOf, pieceCount: leafOfPiece.length });
      pieceLeaves.set(primitive, leafOfPiece);
    }
  }
  return { soup, tree, leafOf, leafCount: leaves.length, placements, pieces, pieceLeaves };
}

/** The leaves as pieces numbered from 0 in first use, and the leaf of each; `scratch` (all -1, left so) per leaf. */
function numberPieces(
  leafIds: Uint32Array,
  scratch: Int32Array,
): { pieceOf: Uint32Array; leafOfPiece: Uint32Array } {
  const pieceOf = new Uint32Array(leafIds.length);
  const leafOfPiece: number[] = [];
  for (let t = 0; t < leafIds.length; t++) {
    const leaf = leafIds[t];
    if (scratch[leaf] < 0) scratch[leaf] = leafOfPiece.push(leaf) - 1;
    pieceOf[t] = scratch[leaf];
  }
  for (const leaf of leafOfPiece) scratch[leaf] = -1;
  return { pieceOf, leafOfPiece: Uint32Array.from(leafOfPiece) };
}

/** The placements of primitives placed only once. */
function placedOnce(placements: SoupPlacement[]): SoupPlacement[] {
  const times = new Map<Primitive, number>();
  for (const { primitive } of placements) times.set(primitive, (times.get(primitive) ?? 0) + 1);
  return placements.filter(({ primitive }) => times.get(primitive) === 1);
}

/**
 * Each leaf's triangles at a coarser level of detail, on soup vertices: a leaf simplified on its own with its
 * borders kept, which the tiler hands up to the leaf's parent rather than simplifying the leaf again.
 */
export interface CoarseLeaves {
  /** Soup vertex indices, three a triangle, the triangles of each leaf together. */
  corners: Uint32Array;
  /** Leaf l's triangles are `corners[3 · offsets[l], 3 · offsets[l + 1])`. */
  offsets: Uint32Array;
  /** 1 for a leaf all of whose triangles have a coarse version (else its triangles here are not the whole leaf). */
  covered: Uint8Array;
  /** How far each leaf's coarse triangles stray from it at most, in metres. */
  errors: Float64Array;
}

/**
 * The leaves' coarse triangles from the levels' primitives as simplified in the plan's pieces (`traced`, from
 * `LodDocument.piecesInLod0`): a leaf is covered when every triangle in it comes from a primitive traced there.
 */
export function coarseLeaves(
  plan: TilingPlan,
  traced: ReadonlyMap<Primitive, PiecedTriangles>,
): CoarseLeaves {
  const { leafCount, leafOf } = plan;
  const covered = new Uint8Array(leafCount).fill(1);
  const kept = plan.placements.filter((placement) => traced.has(placement.primitive));
  for (const placement of plan.placements) {
    if (traced.has(placement.primitive)) continue;
    const end = placement.firstTriangle + placement.triangles;
    for (let t = placement.firstTriangle; t < end; t++) covered[leafOf[t]] = 0;
  }
  const offsets = new Uint32Array(leafCount + 1);
  // A piece's leaf read in place (a table, or the piece itself) rather than through a closure a placement: at
  // 100,000 parts the closures' calls were most of this step.
  for (const { primitive } of kept) {
    const table = plan.pieceLeaves.get(primitive);
    for (const piece of traced.get(primitive)!.pieceOf) {
      const leaf = table ? table[piece] : piece;
      if (covered[leaf]) offsets[leaf + 1]++;
    }
  }
  for (let leaf = 0; leaf < leafCount; leaf++) offsets[leaf + 1] += offsets[leaf];
  const corners = new Uint32Array(offsets[leafCount] * 3);
  const errors = new Float64Array(leafCount);
  const next = offsets.slice(0, leafCount);
  for (const placement of kept) {
    const { indices, pieceOf, pieceErrors } = traced.get(placement.primitive)!;
    const { firstVertex: base } = placement;
    const table = plan.pieceLeaves.get(placement.primitive);
    // The soup swaps a mirrored primitive's second and third corners: so do its coarse triangles.
    const [second, third] = placement.mirrored ? [2, 1] : [1, 2];
    for (let t = 0; t < pieceOf.length; t++) {
      const leaf = table ? table[pieceOf[t]] : pieceOf[t];
      if (!covered[leaf]) continue;
      const at = next[leaf]++ * 3;
      corners[at] = base + indices[t * 3];
      corners[at + 1] = base + indices[t * 3 + second];
      corners[at + 2] = base + indices[t * 3 + third];
    }
    // An error in the mesh's units, as far in metres as its node magnifies it.
    const scale = placement.scale;
    for (let piece = 0; piece < pieceErrors.length; piece++) {
      const leaf = table ? table[piece] : piece;
      errors[leaf] = Math.max(errors[leaf], pieceErrors[piece] * scale);
    }
  }
  return { corners, offsets, covered, errors };
}

/** Leaf `index`'s coarse triangles as a tile's geometry, with how far they stray from it; none where not covered. */
export function coarseLeafGeometry(
  coarse: CoarseLeaves | undefined,
  index: number,
  slots: VertexSlots,
): SimplifiedTile | undefined {
  if (!coarse?.covered[index]) return undefined;
  const corners = coarse.corners.subarray(coarse.offsets[index] * 3, coarse.offsets[index + 1] * 3);
  return { geometry: cornersGeometry(corners, slots), error: coarse.errors[index] };
}
