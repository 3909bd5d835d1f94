import type { MeshoptEncoder } from 'meshoptimizer';

/**
 * Triangles reordered at once: meshoptimizer's vertex cache optimizer needs about 45 bytes a triangle of its
 * WebAssembly heap, which never shrinks, so a 20 M-triangle LOD 0 reordered whole would hold a gigabyte until the
 * conversion ends. In pieces of this size it holds about 50 MB.
 */
export const REORDER_CHUNK_TRIANGLES = 1 << 20;

/** No new index yet: what meshoptimizer's remap gives an unused vertex. */
const UNSET = 0xffffffff;

/**
 * meshoptimizer's encoder with `reorderMesh` working in pieces of `chunkTriangles` for bigger triangle lists, for
 * glTF-Transform's `reorder` and `meshopt`. Each piece's triangles are ordered for the vertex cache on their own (in
 * the list's order of pieces), and vertices are numbered in the order the whole list first uses them, as the
 * encoder's own reorder numbers them, so the vertex codec sees the same locality. Smaller lists go to the encoder
 * as they are, so their result is the encoder's own.
 */
export function chunkedReorderEncoder(
  encoder: typeof MeshoptEncoder,
  chunkTriangles = REORDER_CHUNK_TRIANGLES,
): typeof MeshoptEncoder {
  return {
    ...encoder,
    reorderMesh: (indices, triangles, optsize) =>
      triangles && indices.length > chunkTriangles * 3
        ? reorderInPieces(encoder, indices, optsize, chunkTriangles)
        : encoder.reorderMesh(indices, triangles, optsize),
  };
}

/**
 * The contract of `reorderMesh` for a triangle list, a piece at a time: rewrites `indices` in place with the new
 * vertex numbers and returns the remap (old vertex → new, `0xffffffff` for a vertex no triangle uses) and the
 * number of vertices used.
 */
function reorderInPieces(
  encoder: typeof MeshoptEncoder,
  indices: Uint32Array | Int32Array,
  optsize: boolean,
  chunkTriangles: number,
): [Uint32Array, number] {
  let vertexCount = 0;
  for (let i = 0; i < indices.length; i++) if (indices[i] >= vertexCount) vertexCount = indices[i] + 1;
  const remap = new Uint32Array(vertexCount).fill(UNSET);
  // A piece's vertices are numbered from 0 so the optimizer's tables are sized by the piece, not the whole list.
  const local = new Int32Array(vertexCount).fill(-1);
  const pieceIndices = new Uint32Array(chunkTriangles * 3);
  const globalOf = new Uint32Array(chunkTriangles * 3);
  let used = 0;
  for (let start = 0; start < indices.length; start += chunkTriangles * 3) {
    const end = Math.min(indices.length, start + chunkTriangles * 3);
    const piece = pieceIndices.subarray(0, end - start);
    let count = 0;
    for (let i = start; i < end; i++) {
      const vertex = indices[i];
      if (local[vertex] < 0) {
        local[vertex] = count;
        globalOf[count++] = vertex;
      }
      piece[i - start] = local[vertex];
    }
    const [pieceRemap] = encoder.reorderMesh(piece, true, optsize);
    // The piece now holds its own new numbers; back from them to the list's vertices, numbered in first use.
    const before = new Uint32Array(count);
    for (let k = 0; k < count; k++) before[pieceRemap[k]] = k;
    for (let i = start; i < end; i++) {
      const vertex = globalOf[before[piece[i - start]]];
      if (remap[vertex] === UNSET) remap[vertex] = used++;
      indices[i] = remap[vertex];
    }
    for (let k = 0; k < count; k++) local[globalOf[k]] = -1;
  }
  return [remap, used];
}
