import type { MeshoptSimplifier } from 'meshoptimizer';
import type { AttributeWeights } from '../lods/simplifier-attributes.ts';
import type { TileGeometry } from './tile-geometry.ts';
import { tileNormals, tilePositions } from './tile-geometry.ts';
import type { TriangleSoup } from './triangle-soup.ts';

/** Options of {@link simplifyTile}. */
export interface SimplifyTileOptions {
  /** meshoptimizer's simplifier, awaited `ready` before use. */
  simplifier: typeof MeshoptSimplifier;
  /** Share of the triangles aimed at. */
  ratio: number;
  /** Most the result may stray from its input, in metres: the model's diagonal, beyond which nothing is kept. */
  maxError: number;
  /** Weight of normals in the error besides positions, as for the levels of detail. */
  attributeWeights: AttributeWeights;
}

/** A simplified tile and how far it strays from what it was made from. */
export interface SimplifiedTile {
  geometry: TileGeometry;
  /** Largest distance of the result from its input, in metres. */
  error: number;
}

/**
 * Simplifies a tile's geometry towards `ratio` of its triangles with the attribute-aware simplifier the levels of
 * detail use (normals weighed beside positions). The tile's open borders are locked: they are where it meets
 * its neighbours, which may be drawn at another depth, so keeping them leaves no crack; borders between parts
 * (separate vertices) stay too, so parts never run into each other.
 */
export function simplifyTile(
  soup: TriangleSoup,
  geometry: TileGeometry,
  options: SimplifyTileOptions,
): SimplifiedTile {
  const target = Math.max(3, Math.floor((geometry.indices.length / 3) * options.ratio) * 3);
  if (geometry.indices.length <= target) return { geometry, error: 0 };
  const positions = tilePositions(soup, geometry);
  const weight = options.attributeWeights.normal;
  const [indices, error] =
    weight > 0
      ? options.simplifier.simplifyWithAttributes(
          geometry.indices,
          positions,
          3,
          tileNormals(soup, geometry),
          3,
          [weight, weight, weight],
          null,
          target,
          options.maxError,
          ['LockBorder', 'ErrorAbsolute'],
        )
      : options.simplifier.simplify(geometry.indices, positions, 3, target, options.maxError, [
          'LockBorder',
          'ErrorAbsolute',
        ]);
  return { geometry: compact(geometry, indices), error };
}

/** Keeps only the vertices the new triangles use. */
function compact(geometry: TileGeometry, indices: Uint32Array): TileGeometry {
  const remap = new Int32Array(geometry.vertices.length).fill(-1);
  const vertices: number[] = [];
  const local = new Uint32Array(indices.length);
  for (let i = 0; i < indices.length; i++) {
    const index = indices[i];
    if (remap[index] < 0) {
      remap[index] = vertices.length;
      vertices.push(geometry.vertices[index]);
    }
    local[i] = remap[index];
  }
  return { vertices: Uint32Array.from(vertices), indices: local };
}
