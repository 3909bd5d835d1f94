import type { Primitive } from '@gltf-transform/core';
import { uint32Indices } from './primitive-arrays.ts';
import type { PiecedSimplification } from './simplify-in-chunks.ts';

/** Pieces a caller asks a primitive to be simplified in: a piece id per LOD 0 triangle, each below `pieceCount`. */
export interface TrianglePieces {
  pieceOf: Uint32Array;
  pieceCount: number;
}

/**
 * A primitive's triangles at a level of detail, each with its piece, on LOD 0's vertices: what a caller that
 * chose the pieces can take piece by piece (each piece of it covers what that piece of LOD 0 did, borders kept).
 */
export interface PiecedTriangles {
  /** Three LOD 0 vertex indices per triangle. */
  indices: Uint32Array;
  /** The piece of each triangle. */
  pieceOf: Uint32Array;
  /** How far each piece strays from LOD 0 at most, by piece id, in the mesh's own units. */
  pieceErrors: Float64Array;
}

/** Where a pieced primitive stands between levels. */
export interface PiecedState extends TrianglePieces {
  /** LOD 0's index of each of the primitive's vertices as they are now; null while they are LOD 0's. */
  lod0Vertex: Uint32Array | null;
  /** Error spent by each piece so far, in the mesh's own units. */
  pieceErrors: Float64Array;
}

/** The state of a primitive about to be simplified in the given pieces. */
export function startPieces(pieces: TrianglePieces): PiecedState {
  return { ...pieces, lod0Vertex: null, pieceErrors: new Float64Array(pieces.pieceCount) };
}

/**
 * The state after a pieced simplification was taken and the primitive's vertices compacted: its new vertices are
 * traced back to LOD 0 through `simplified.indices` (the indices before compacting, in the same triangle order as
 * the primitive's now), and each piece's error is added to what it had spent.
 */
export function advancePieces(
  state: PiecedState,
  simplified: PiecedSimplification,
  primitive: Primitive,
): PiecedState {
  const compacted = uint32Indices(primitive);
  const lod0Vertex = new Uint32Array(primitive.getAttribute('POSITION')!.getCount());
  const before = simplified.indices;
  for (let i = 0; i < compacted.length; i++)
    lod0Vertex[compacted[i]] = state.lod0Vertex ? state.lod0Vertex[before[i]] : before[i];
  const pieceErrors = state.pieceErrors.map((spent, piece) => spent + simplified.pieceErrors[piece]);
  return { pieceOf: simplified.pieceOf, pieceCount: state.pieceCount, lod0Vertex, pieceErrors };
}

/** A primitive's triangles as they are now, on LOD 0's vertices, with their pieces. */
export function piecedTriangles(state: PiecedState, primitive: Primitive): PiecedTriangles {
  const indices = uint32Indices(primitive);
  const { lod0Vertex } = state;
  // Copied either way: the primitive's own array may be simplified further by the next level.
  const traced = lod0Vertex ? indices.map((vertex) => lod0Vertex[vertex]) : indices.slice();
  return { indices: traced, pieceOf: state.pieceOf, pieceErrors: state.pieceErrors };
}

/**
 * The primitives given `pieces` as they stand now, on LOD 0's vertices: those simplified (`worked`, with their
 * state, undefined where their pieces were given up) and those left as they were at LOD 0.
 */
export function piecesInLod0(
  worked: ReadonlyMap<Primitive, PiecedState | undefined>,
  pieces: ReadonlyMap<Primitive, TrianglePieces> | undefined,
): Map<Primitive, PiecedTriangles> {
  const traced = new Map<Primitive, PiecedTriangles>();
  for (const [primitive, given] of pieces ?? []) {
    const state = worked.has(primitive) ? worked.get(primitive) : startPieces(given);
    if (state) traced.set(primitive, piecedTriangles(state, primitive));
  }
  return traced;
}
