import type { TriangleSoup } from './triangle-soup.ts';

/**
 * The triangles of one tile as ids into the soup: the soup vertices it uses and its triangles over them. The
 * simplifier only drops vertices, never moves them, so every tile of the tree, leaf or simplified, is such a
 * subset: 16 bytes a triangle or so, with no copy of any vertex data.
 */
export interface TileGeometry {
  /** Soup vertex ids, each once. */
  vertices: Uint32Array;
  /** Three indices into `vertices` per triangle. */
  indices: Uint32Array;
}

/** An axis-aligned box in the soup's frame (metres, +Y up). */
export interface TileBox {
  min: [number, number, number];
  max: [number, number, number];
}

/**
 * A soup-sized table from soup vertex id to a tile's own vertex index, -1 where unused: shared by every tile built
 * (4 bytes a vertex once), and left all -1 again after each use.
 */
export type VertexSlots = Int32Array;

/** A fresh {@link VertexSlots} table for a soup. */
export function createVertexSlots(soup: TriangleSoup): VertexSlots {
  return new Int32Array(soup.vertexPart.length).fill(-1);
}

/** The geometry of a leaf: the listed soup triangles over the vertices they use. */
export function leafGeometry(soup: TriangleSoup, triangles: Uint32Array, slots: VertexSlots): TileGeometry {
  const indices = new Uint32Array(triangles.length * 3);
  // At most three vertices a triangle: a typed array that size, cut to what is used, rather than a growing list.
  const vertices = new Uint32Array(indices.length);
  let used = 0;
  const soupIndices = soup.indices;
  for (let t = 0; t < triangles.length; t++) {
    for (let corner = 0; corner < 3; corner++) {
      const vertex = soupIndices[triangles[t] * 3 + corner];
      if (slots[vertex] < 0) {
        slots[vertex] = used;
        vertices[used++] = vertex;
      }
      indices[t * 3 + corner] = slots[vertex];
    }
  }
  return { vertices: releaseSlots(slots, vertices, used), indices };
}

/** The geometry of triangles given by their soup vertices (three a triangle), over the vertices they use. */
export function cornersGeometry(corners: Uint32Array, slots: VertexSlots): TileGeometry {
  const indices = new Uint32Array(corners.length);
  const vertices = new Uint32Array(corners.length);
  let used = 0;
  for (let i = 0; i < corners.length; i++) {
    const vertex = corners[i];
    if (slots[vertex] < 0) {
      slots[vertex] = used;
      vertices[used++] = vertex;
    }
    indices[i] = slots[vertex];
  }
  return { vertices: releaseSlots(slots, vertices, used), indices };
}

/**
 * The children's geometries as one: a vertex they share (along the cut between them) becomes one vertex again,
 * so the simplifier sees one surface there rather than a border it must keep.
 */
export function mergeGeometries(children: TileGeometry[], slots: VertexSlots): TileGeometry {
  const indices = new Uint32Array(children.reduce((sum, child) => sum + child.indices.length, 0));
  const vertices = new Uint32Array(children.reduce((sum, child) => sum + child.vertices.length, 0));
  let used = 0;
  let at = 0;
  for (const child of children) {
    const { indices: childIndices, vertices: childVertices } = child;
    for (let i = 0; i < childIndices.length; i++) {
      const vertex = childVertices[childIndices[i]];
      if (slots[vertex] < 0) {
        slots[vertex] = used;
        vertices[used++] = vertex;
      }
      indices[at++] = slots[vertex];
    }
  }
  return { vertices: releaseSlots(slots, vertices, used), indices };
}

/** Sets the slots of the first `used` of `vertices` back to -1, and returns those vertices in an array their size. */
function releaseSlots(slots: VertexSlots, vertices: Uint32Array, used: number): Uint32Array {
  for (let i = 0; i < used; i++) slots[vertices[i]] = -1;
  return used === vertices.length ? vertices : vertices.slice(0, used);
}

/** A tile's positions and normals, packed, gathered once for all that read them. */
export interface TileVertexData {
  positions: Float32Array;
  /** Null when the soup has none. */
  normals: Float32Array | null;
}

/** {@link TileVertexData} of a tile. */
export function tileVertexData(soup: TriangleSoup, geometry: TileGeometry): TileVertexData {
  return { positions: tilePositions(soup, geometry), normals: tileNormals(soup, geometry) };
}

/** The positions of a tile's vertices, packed, as the simplifier and the writer want them. */
export function tilePositions(soup: TriangleSoup, geometry: TileGeometry): Float32Array {
  return gather(soup.positions, geometry.vertices);
}

/** The normals of a tile's vertices, packed; null when the soup has none. */
export function tileNormals(soup: TriangleSoup, geometry: TileGeometry): Float32Array | null {
  return soup.normals && gather(soup.normals, geometry.vertices);
}

/** The UVs of a tile's vertices, packed; null when the soup has none. */
export function tileUvs(soup: TriangleSoup, geometry: TileGeometry): Float32Array | null {
  return soup.uvs && gather(soup.uvs, geometry.vertices, 2);
}

/** The colours of a tile's vertices (normalized 16-bit RGBA), packed; null when the soup has none. */
export function tileColors(soup: TriangleSoup, geometry: TileGeometry): Uint16Array | null {
  if (!soup.colors) return null;
  const { vertices } = geometry;
  const packed = new Uint16Array(vertices.length * 4);
  for (let i = 0; i < vertices.length; i++)
    packed.set(soup.colors.subarray(vertices[i] * 4, vertices[i] * 4 + 4), i * 4);
  return packed;
}

/** `size` floats per listed vertex, from a soup array of `size` floats per vertex. */
function gather(source: Float32Array, vertices: Uint32Array, size: 2 | 3 = 3): Float32Array {
  const packed = new Float32Array(vertices.length * size);
  // Written out per size: a loop over the components costs several times as much, on every tile's every vertex.
  if (size === 3) {
    for (let i = 0, to = 0; i < vertices.length; i++, to += 3) {
      const from = vertices[i] * 3;
      packed[to] = source[from];
      packed[to + 1] = source[from + 1];
      packed[to + 2] = source[from + 2];
    }
  } else {
    for (let i = 0, to = 0; i < vertices.length; i++, to += 2) {
      const from = vertices[i] * 2;
      packed[to] = source[from];
      packed[to + 1] = source[from + 1];
    }
  }
  return packed;
}

/** The box of packed positions (of the vertices drawn: a tile holds no others). */
export function positionsBox(positions: Float32Array): TileBox {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  // One axis at a time, in locals: the box's arrays are written once an axis, not once a vertex.
  for (let axis = 0; axis < 3; axis++) {
    let low = Infinity;
    let high = -Infinity;
    for (let i = axis; i < positions.length; i += 3) {
      const value = positions[i];
      if (value < low) low = value;
      if (value > high) high = value;
    }
    min[axis] = low;
    max[axis] = high;
  }
  return { min: min as TileBox['min'], max: max as TileBox['max'] };
}

/** The smallest box holding all the given boxes. */
export function unionBoxes(boxes: TileBox[]): TileBox {
  const box: TileBox = { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] };
  for (const other of boxes) {
    for (let axis = 0; axis < 3; axis++) {
      box.min[axis] = Math.min(box.min[axis], other.min[axis]);
      box.max[axis] = Math.max(box.max[axis], other.max[axis]);
    }
  }
  return box;
}

/** The length of a box's diagonal; 0 for an empty box. */
export function boxDiagonal(box: TileBox): number {
  const size = [0, 1, 2].map((axis) => box.max[axis] - box.min[axis]);
  return size.every((side) => side >= 0) ? Math.hypot(size[0], size[1], size[2]) : 0;
}
