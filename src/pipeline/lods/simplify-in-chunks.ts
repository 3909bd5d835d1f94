import type { MeshoptSimplifier, SimplifierFlags } from 'meshoptimizer';

/** Options of {@link simplifyInChunks}. */
export interface SimplifyInChunksOptions {
  /** meshoptimizer's simplifier, ready. */
  simplifier: typeof MeshoptSimplifier;
  /** Indices the whole list aims at (a multiple of 3). */
  targetIndexCount: number;
  /** Largest absolute error, in the positions' units. */
  targetError: number;
  /** Simplifier flags, as for a single call. */
  flags: SimplifierFlags[];
  /**
   * Vertex attributes the simplifier weighs besides positions (normals, UVs, colours), `attributeWeights.length`
   * floats per vertex; empty for positions alone.
   */
  attributes?: Float32Array;
  /** Weight of each float of a vertex's attributes in the error (see meshoptimizer's `simplifyWithAttributes`). */
  attributeWeights?: number[];
  /** Largest piece handed to the simplifier at once, in triangles. */
  chunkTriangles: number;
  /** Told after each piece how many of the list's triangles are done. */
  onChunk?: (trianglesDone: number) => void;
}

/** Cells per axis of the grid triangles are ordered by: 2^6, so 2^18 cells and a 1 MiB counting table. */
const GRID_BITS = 6;

/**
 * Simplifies an indexed triangle list like meshoptimizer's `simplifyWithAttributes`, in spatially compact pieces of at most
 * `chunkTriangles` when it is bigger: the simplifier's working memory (about 150 bytes per triangle, in a
 * WebAssembly heap that never shrinks) is then bounded by one piece, and progress can be told between pieces.
 * Vertices shared by two pieces are locked, so the pieces still meet without a crack; each piece aims at the
 * list's share of its target within the same error bound. Returns the new indices and the largest error.
 */
export function simplifyInChunks(
  indices: Uint32Array,
  positions: Float32Array,
  options: SimplifyInChunksOptions,
): [Uint32Array, number] {
  const triangles = indices.length / 3;
  if (triangles <= options.chunkTriangles) {
    const result = simplifyPiece(
      indices,
      positions,
      options.attributes ?? NO_ATTRIBUTES,
      null,
      options.targetIndexCount,
      options,
    );
    options.onChunk?.(triangles);
    return result;
  }

  options.onChunk?.(0);
  const order = spatialOrder(indices, positions, () => options.onChunk?.(0));
  options.onChunk?.(0);
  const pieces = Math.ceil(triangles / options.chunkTriangles);
  const perPiece = Math.ceil(triangles / pieces);
  const starts = Array.from({ length: pieces + 1 }, (_, piece) => Math.min(triangles, piece * perPiece));
  const { indices: output, error } = simplifyRuns(indices, positions, order, starts, options);
  return [output, error];
}

/** What {@link simplifyInPieces} made: the new triangles piece by piece, each with its piece, and each piece's error. */
export interface PiecedSimplification {
  /** The new indices, the triangles of each piece together, pieces in increasing order. */
  indices: Uint32Array;
  /** The piece of each new triangle. */
  pieceOf: Uint32Array;
  /** Largest error of all pieces. */
  error: number;
  /** Each piece's own error, by piece id. */
  pieceErrors: Float64Array;
}

/**
 * Simplifies an indexed triangle list in the pieces a caller chose (`pieceOf`: a piece id per triangle, below
 * `pieceCount`), like {@link simplifyInChunks} with pieces of its own: vertices shared by two pieces are locked, so
 * every piece's border stays where it was and each piece of the result covers exactly what that piece did. The
 * triangles of one piece come out together and keep their piece, so a caller can take any piece of the result
 * alone (the tiler hands up a leaf of its tree this way). Each piece should be small enough for the simplifier
 * at once: its memory grows with the largest piece.
 */
export function simplifyInPieces(
  indices: Uint32Array,
  positions: Float32Array,
  pieceOf: Uint32Array,
  pieceCount: number,
  options: Omit<SimplifyInChunksOptions, 'chunkTriangles'>,
): PiecedSimplification {
  const triangles = indices.length / 3;
  // A stable counting sort of the triangles by piece.
  const starts = new Array<number>(pieceCount + 1).fill(0);
  for (let t = 0; t < triangles; t++) starts[pieceOf[t] + 1]++;
  for (let piece = 0; piece < pieceCount; piece++) starts[piece + 1] += starts[piece];
  const next = starts.slice(0, pieceCount);
  const order = new Uint32Array(triangles);
  for (let t = 0; t < triangles; t++) order[next[pieceOf[t]]++] = t;
  return simplifyRuns(indices, positions, order, starts, options);
}

/**
 * Simplifies each run `order[starts[r], starts[r + 1])` of triangles on its own as piece r, the vertices used by
 * two runs locked, and puts the results together in run order.
 */
function simplifyRuns(
  indices: Uint32Array,
  positions: Float32Array,
  order: Uint32Array,
  starts: number[],
  options: Omit<SimplifyInChunksOptions, 'chunkTriangles'>,
): PiecedSimplification {
  const vertexCount = positions.length / 3;
  const stride = options.attributeWeights?.length ?? 0;
  options.onChunk?.(0);
  const seams = sharedVertices(indices, order, starts, vertexCount);
  options.onChunk?.(0);
  const share = options.targetIndexCount / indices.length;
  let largest = 0;
  for (let run = 0; run + 1 < starts.length; run++)
    largest = Math.max(largest, starts[run + 1] - starts[run]);

  const output = new Uint32Array(indices.length);
  const outputPieces = new Uint32Array(indices.length / 3);
  const pieceErrors = new Float64Array(starts.length - 1);
  let written = 0;
  let error = 0;
  // Working arrays sized for the largest piece, reused: `local` maps a vertex of the whole list to its piece's index.
  const local = new Int32Array(vertexCount).fill(-1);
  const globalOf = new Uint32Array(largest * 3);
  const pieceIndices = new Uint32Array(largest * 3);
  const piecePositions = new Float32Array(largest * 9);
  const pieceAttributes = new Float32Array(largest * 3 * stride);
  const pieceLocks = new Uint8Array(largest * 3);
  for (let piece = 0; piece + 1 < starts.length; piece++) {
    const [start, end] = [starts[piece], starts[piece + 1]];
    if (start === end) continue;
    let vertices = 0;
    for (let k = start; k < end; k++) {
      const t = order[k] * 3;
      for (let corner = 0; corner < 3; corner++) {
        const vertex = indices[t + corner];
        let index = local[vertex];
        if (index < 0) {
          index = vertices++;
          local[vertex] = index;
          globalOf[index] = vertex;
          piecePositions[index * 3] = positions[vertex * 3];
          piecePositions[index * 3 + 1] = positions[vertex * 3 + 1];
          piecePositions[index * 3 + 2] = positions[vertex * 3 + 2];
          for (let k = 0; k < stride; k++)
            pieceAttributes[index * stride + k] = options.attributes![vertex * stride + k];
          pieceLocks[index] = seams[vertex];
        }
        pieceIndices[(k - start) * 3 + corner] = index;
      }
    }
    const count = (end - start) * 3;
    const target = Math.max(3, Math.floor((count * share) / 3) * 3);
    const [result, pieceError] = simplifyPiece(
      pieceIndices.subarray(0, count),
      piecePositions.subarray(0, vertices * 3),
      pieceAttributes.subarray(0, vertices * stride),
      pieceLocks.subarray(0, vertices),
      target,
      options,
    );
    for (let i = 0; i < result.length; i++) output[written + i] = globalOf[result[i]];
    outputPieces.fill(piece, written / 3, (written + result.length) / 3);
    written += result.length;
    error = Math.max(error, pieceError);
    pieceErrors[piece] = Math.max(pieceErrors[piece], pieceError);
    for (let i = 0; i < vertices; i++) local[globalOf[i]] = -1;
    options.onChunk?.(end);
  }
  return {
    indices: output.slice(0, written),
    pieceOf: outputPieces.slice(0, written / 3),
    error,
    pieceErrors,
  };
}

/**
 * One simplifier call, with the vertices in `locks` kept where they are. Never `Permissive`: edges that cross a
 * UV or normal seam smear textures and shading, however small their geometric error.
 */
function simplifyPiece(
  indices: Uint32Array,
  positions: Float32Array,
  attributes: Float32Array,
  locks: Uint8Array | null,
  target: number,
  options: Omit<SimplifyInChunksOptions, 'chunkTriangles'>,
): [Uint32Array, number] {
  const weights = options.attributeWeights ?? [];
  const [result, error] = options.simplifier.simplifyWithAttributes(
    indices,
    positions,
    3,
    weights.length ? attributes : NO_ATTRIBUTES,
    weights.length,
    weights,
    locks,
    target,
    options.targetError,
    options.flags,
  );
  // A piece the simplifier emptied (all of it within the error) keeps its triangles: a hole is not a LOD.
  return result.length === 0 ? [indices.slice(), 0] : [result, error];
}

const NO_ATTRIBUTES = new Float32Array(0);

/**
 * The triangles' ids ordered along a Morton curve through a 64³ grid over the list's box (a stable counting
 * sort, so triangles of one cell keep the file's order): consecutive runs of it are compact pieces of surface.
 * `onPass` is called between its three passes over the list (each about half a second for 20 M triangles).
 */
function spatialOrder(indices: Uint32Array, positions: Float32Array, onPass: () => void): Uint32Array {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < indices.length; i++) {
    const at = indices[i] * 3;
    for (let axis = 0; axis < 3; axis++) {
      const value = positions[at + axis];
      if (value < min[axis]) min[axis] = value;
      if (value > max[axis]) max[axis] = value;
    }
  }
  onPass();
  const cells = 1 << GRID_BITS;
  const scale = min.map((low, axis) => (max[axis] > low ? cells / (max[axis] - low) : 0));
  const triangles = indices.length / 3;
  const keys = new Uint32Array(triangles);
  const counts = new Uint32Array(1 << (GRID_BITS * 3));
  const [sx, sy, sz] = scale;
  const [mx, my, mz] = min;
  const cell = (centre: number, low: number, factor: number): number =>
    Math.min(cells - 1, Math.max(0, Math.floor((centre - low) * factor)));
  for (let t = 0; t < triangles; t++) {
    const a = indices[t * 3] * 3;
    const b = indices[t * 3 + 1] * 3;
    const c = indices[t * 3 + 2] * 3;
    const key =
      SPREAD[cell((positions[a] + positions[b] + positions[c]) / 3, mx, sx)] |
      (SPREAD[cell((positions[a + 1] + positions[b + 1] + positions[c + 1]) / 3, my, sy)] << 1) |
      (SPREAD[cell((positions[a + 2] + positions[b + 2] + positions[c + 2]) / 3, mz, sz)] << 2);
    keys[t] = key;
    counts[key]++;
  }
  onPass();
  let offset = 0;
  for (let key = 0; key < counts.length; key++) {
    const count = counts[key];
    counts[key] = offset;
    offset += count;
  }
  const order = new Uint32Array(triangles);
  for (let t = 0; t < triangles; t++) order[counts[keys[t]]++] = t;
  return order;
}

/** Each 6-bit cell coordinate with its bits spread three apart, for a Morton code of three axes. */
const SPREAD = Uint32Array.from({ length: 1 << GRID_BITS }, (_, value) => {
  let result = 0;
  for (let bit = 0; bit < GRID_BITS; bit++) result |= ((value >> bit) & 1) << (bit * 3);
  return result;
});

/** 1 for each vertex used by triangles of more than one run of `order` (runs from each of `starts`), else 0. */
function sharedVertices(
  indices: Uint32Array,
  order: Uint32Array,
  starts: number[],
  vertexCount: number,
): Uint8Array {
  const owner = new Int32Array(vertexCount).fill(-1);
  const shared = new Uint8Array(vertexCount);
  for (let run = 0; run + 1 < starts.length; run++) {
    for (let k = starts[run]; k < starts[run + 1]; k++) {
      const t = order[k] * 3;
      for (let corner = 0; corner < 3; corner++) {
        const vertex = indices[t + corner];
        if (owner[vertex] < 0) owner[vertex] = run;
        else if (owner[vertex] !== run) shared[vertex] = 1;
      }
    }
  }
  return shared;
}
