import type { MeshoptSimplifier } from 'meshoptimizer';
import type { AttributeWeights } from '../lods/simplifier-attributes.ts';
import type { TileGeometry } from './tile-geometry.ts';
import type { TileVertexData } from './tile-geometry.ts';
import { tileColors, tileNormals, tilePositions, tileUvs } from './tile-geometry.ts';
import type { TriangleSoup } from './triangle-soup.ts';

/** Options of {@link simplifyTile}. */
export interface SimplifyTileOptions {
  /** meshoptimizer's simplifier, awaited `ready` before use. */
  simplifier: typeof MeshoptSimplifier;
  /** Share of the triangles aimed at. */
  ratio: number;
  /**
   * Most the result may stray from its input, in metres: the model's diagonal (beyond which nothing is kept), or
   * less where the tile's error must stay within a bound (it then keeps more triangles than `ratio` asks).
   */
  maxError: number;
  /** Weight of normals, UVs and colours in the error besides positions, as for the levels of detail. */
  attributeWeights: AttributeWeights;
  /** The tile's positions and normals where already gathered (for writing it): read, never altered. */
  vertexData?: TileVertexData;
}

/** A simplified tile and how far it strays from what it was made from. */
export interface SimplifiedTile {
  geometry: TileGeometry;
  /** Largest distance of the result from its input, in metres. */
  error: number;
}

/**
 * How many times the borders-locked simplification of a tile may exceed the borders-free one, in error or in
 * triangles kept (under an error cap), before the free one is taken: a locked border that is long at full
 * resolution (every inner tile's, since each level keeps its children's outer borders) leaves the rest of the tile
 * too few triangles, and the simplifier reaches its target only by collapsing whole shapes into fans along it.
 */
export const STARVED_BORDER_FACTOR = 2;

/**
 * Simplifies a tile's geometry towards `ratio` of its triangles with the attribute-aware simplifier the levels of
 * detail use (normals, UVs and colours weighed beside positions). The tile's open borders are locked where that
 * costs little: they are where it meets its neighbours, which may be drawn at another depth, so keeping them leaves
 * no crack. Where locking them starves the rest of the tile (its error or triangles more than
 * {@link STARVED_BORDER_FACTOR} times those of the same simplification with borders free), the borders are
 * simplified too: a border vertex then only slides along its border, so the gap left towards a neighbour drawn at
 * another depth is within this tile's error, which the viewer keeps below a pixel or so. Borders between parts (separate vertices) stay borders either
 * way, so parts never run into each other, and so do UV seams (the copies of a corner with different UVs are
 * separate soup vertices, never welded).
 */
export function simplifyTile(
  soup: TriangleSoup,
  geometry: TileGeometry,
  options: SimplifyTileOptions,
): SimplifiedTile {
  const target = Math.max(3, Math.floor((geometry.indices.length / 3) * options.ratio) * 3);
  if (geometry.indices.length <= target) return { geometry, error: 0 };
  const positions = options.vertexData?.positions ?? tilePositions(soup, geometry);
  const { attributes, weights } = packAttributes(
    soup,
    geometry,
    options.attributeWeights,
    options.vertexData?.normals,
  );
  const simplify = (lockBorder: boolean): [Uint32Array, number] => {
    const flags: ('LockBorder' | 'ErrorAbsolute')[] = lockBorder
      ? ['LockBorder', 'ErrorAbsolute']
      : ['ErrorAbsolute'];
    return weights.length > 0
      ? options.simplifier.simplifyWithAttributes(
          geometry.indices,
          positions,
          3,
          attributes,
          weights.length,
          weights,
          null,
          target,
          options.maxError,
          flags,
        )
      : options.simplifier.simplify(geometry.indices, positions, 3, target, options.maxError, flags);
  };
  let [indices, error] = simplify(true);
  if (error > 0 || indices.length > target) {
    const [freeIndices, freeError] = simplify(false);
    const starved =
      error > STARVED_BORDER_FACTOR * freeError ||
      indices.length > STARVED_BORDER_FACTOR * freeIndices.length;
    if (starved) [indices, error] = [freeIndices, freeError];
  }
  if (indices.length > STARVED_BORDER_FACTOR * target) {
    // Many small separate pieces (bolts, boxes) do not collapse edge by edge: each keeps about its every triangle,
    // and so would every level of the tree. Their vertices are clustered instead, nearby pieces merging into the
    // coarse shape they make together, within the same error.
    const scale = options.simplifier.getScale(positions, 3);
    const [clustered, relativeError] = options.simplifier.simplifySloppy(
      geometry.indices,
      positions,
      3,
      null,
      target,
      options.maxError / scale,
    );
    if (clustered.length > 0 && clustered.length < indices.length)
      [indices, error] = [clustered, relativeError * scale];
  }
  return { geometry: compact(geometry, indices), error };
}

/**
 * Simplifies a tile already `tile.error` from what it stands for towards `triangles` triangles (as it is when it
 * has no more), the errors added: what a tile hands its parent, from its own geometry or from a coarser version.
 */
export function simplifyTileTo(
  soup: TriangleSoup,
  tile: SimplifiedTile,
  triangles: number,
  options: Omit<SimplifyTileOptions, 'ratio'>,
): SimplifiedTile {
  const ratio = triangles / (tile.geometry.indices.length / 3);
  const simplified = simplifyTile(soup, tile.geometry, { ...options, ratio });
  return { geometry: simplified.geometry, error: tile.error + simplified.error };
}

/**
 * What a tile hands its parent is simplified from: its coarse version (simplified already) when that has at least
 * the `triangles` aimed at, else the tile itself. A coarse version below them (LOD 2's 15 % of a leaf of two
 * siblings, which may hand up half) would leave the parent coarser than it need be, and further astray.
 */
export function handUpSource(
  tile: TileGeometry,
  coarse: SimplifiedTile | undefined,
  triangles: number,
): SimplifiedTile {
  return coarse && coarse.geometry.indices.length / 3 >= triangles ? coarse : { geometry: tile, error: 0 };
}

/** A tile's normals, UVs and colour (RGB, linear 0–1) packed per vertex, each float with its weight; weight 0 left out. */
function packAttributes(
  soup: TriangleSoup,
  geometry: TileGeometry,
  weights: AttributeWeights,
  normals = weights.normal > 0 ? tileNormals(soup, geometry) : undefined,
): { attributes: Float32Array; weights: number[] } {
  const parts: [ArrayLike<number>, number, number, number][] = [];
  // A model without normals is drawn flat, as its levels are simplified: by positions alone.
  if (normals && weights.normal > 0) parts.push([normals, 3, 3, weights.normal]);
  const uvs = weights.uv > 0 ? tileUvs(soup, geometry) : null;
  if (uvs) parts.push([uvs, 2, 2, weights.uv]);
  const colors = weights.color > 0 ? tileColors(soup, geometry) : null;
  if (colors) parts.push([colors, 4, 3, weights.color]);
  if (parts.length === 1 && parts[0][0] instanceof Float32Array && parts[0][1] === parts[0][2])
    return { attributes: parts[0][0], weights: new Array<number>(parts[0][1]).fill(parts[0][3]) };
  const stride = parts.reduce((sum, [, , size]) => sum + size, 0);
  const count = geometry.vertices.length;
  const attributes = new Float32Array(count * stride);
  let offset = 0;
  for (const [values, size, used] of parts) {
    // Colours are 16-bit normalized; the others floats already.
    const scale = values instanceof Uint16Array ? 1 / 0xffff : 1;
    for (let i = 0; i < count; i++) {
      for (let k = 0; k < used; k++) attributes[i * stride + offset + k] = values[i * size + k] * scale;
    }
    offset += used;
  }
  return { attributes, weights: parts.flatMap(([, , used, weight]) => new Array<number>(used).fill(weight)) };
}

/** Keeps only the vertices the new triangles use. */
function compact(geometry: TileGeometry, indices: Uint32Array): TileGeometry {
  const remap = new Int32Array(geometry.vertices.length).fill(-1);
  // No more vertices than before: a typed array that size, cut to what is used, rather than a growing list.
  const vertices = new Uint32Array(Math.min(geometry.vertices.length, indices.length));
  let used = 0;
  const local = new Uint32Array(indices.length);
  for (let i = 0; i < indices.length; i++) {
    const index = indices[i];
    if (remap[index] < 0) {
      remap[index] = used;
      vertices[used++] = geometry.vertices[index];
    }
    local[i] = remap[index];
  }
  return { vertices: used === vertices.length ? vertices : vertices.slice(0, used), indices: local };
}
