import { faceNormal } from '../../gltf/face-normal.ts';
import type { TriangleSoup } from './triangle-soup.ts';

/** A node of the spatial tree: a leaf holds its triangles, an inner node its pieces (up to 2^cutsPerLevel). */
export interface SplitNode {
  /** Triangle ids of a leaf (a view into one shared array); empty for an inner node. */
  triangles: Uint32Array;
  children: SplitNode[];
}

/** Options of {@link splitTriangles}. */
export interface SplitTrianglesOptions {
  /** Most triangles a leaf may hold. */
  maxLeafTriangles: number;
  /**
   * Binary cuts between a node and its children: 3 gives a node up to eight children, as an octree's, so the tree
   * is a third as deep as a binary one and each inner tile simplifies its children in one pass.
   */
  cutsPerLevel: number;
}

/** Bins of the area histogram a split is chosen from. */
const BINS = 256;

/**
 * Splits a soup's triangles into a k-d tree: each node is cut across the longest side of its triangles' centres
 * where half their surface area lies either side (a bin of a 256-bin histogram), `cutsPerLevel` times between a
 * node and its children, until a node holds at most `maxLeafTriangles`. Splitting by area rather than by count keeps tiles of even size on screen where the
 * tessellation is uneven. Holds 21 bytes a triangle besides the soup (centres, areas, the order and its bins).
 */
export function splitTriangles(soup: TriangleSoup, options: SplitTrianglesOptions): SplitNode {
  const count = soup.indices.length / 3;
  const centres = new Float32Array(count * 3);
  const areas = new Float32Array(count);
  const { positions, indices } = soup;
  const normal = new Float64Array(3);
  // Indexed rather than destructured, each axis written out: this runs once a triangle, tens of millions of times.
  for (let t = 0; t < count; t++) {
    const i = indices[t * 3] * 3;
    const j = indices[t * 3 + 1] * 3;
    const k = indices[t * 3 + 2] * 3;
    centres[t * 3] = (positions[i] + positions[j] + positions[k]) / 3;
    centres[t * 3 + 1] = (positions[i + 1] + positions[j + 1] + positions[k + 1]) / 3;
    centres[t * 3 + 2] = (positions[i + 2] + positions[j + 2] + positions[k + 2]) / 3;
    faceNormal(positions, i, j, k, normal);
    areas[t] = Math.sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]) / 2;
  }
  const order = new Uint32Array(count);
  for (let t = 0; t < count; t++) order[t] = t;
  const maxLeaf = Math.max(1, options.maxLeafTriangles);
  // Each triangle's bin along the axis being cut, by its place in `order`: worked out once a cut, read twice.
  const bins = new Uint8Array(count);

  const split = (start: number, end: number): SplitNode => {
    if (end - start <= maxLeaf) return { triangles: order.subarray(start, end), children: [] };
    // Halves halved again, `cutsPerLevel` times; a piece small enough for a leaf is cut no further.
    let pieces: [number, number][] = [[start, end]];
    for (let cut = 0; cut < Math.max(1, options.cutsPerLevel); cut++) {
      pieces = pieces.flatMap(([from, to]): [number, number][] => {
        if (to - from <= maxLeaf) return [[from, to]];
        const middle = splitPoint(order, bins, from, to, centres, areas);
        return [
          [from, middle],
          [middle, to],
        ];
      });
    }
    return { triangles: new Uint32Array(0), children: pieces.map(([from, to]) => split(from, to)) };
  };
  return split(0, count);
}

/**
 * Reorders `order[start, end)` so the triangles before the returned index lie on the low side of the cut; a
 * cut that would leave one side empty (every centre in one bin) falls back to halving the count. `bins` is
 * scratch space as long as `order`.
 */
function splitPoint(
  order: Uint32Array,
  bins: Uint8Array,
  start: number,
  end: number,
  centres: Float32Array,
  areas: Float32Array,
): number {
  let minX = Infinity;
  let minY = Infinity;
  let minZ = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  let maxZ = -Infinity;
  // Plain locals rather than arrays indexed by axis: this reads every triangle of the node.
  for (let at = start; at < end; at++) {
    const t = order[at] * 3;
    const x = centres[t];
    const y = centres[t + 1];
    const z = centres[t + 2];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  const extents = [maxX - minX, maxY - minY, maxZ - minZ];
  const axis = extents.indexOf(Math.max(...extents));
  const half = start + Math.floor((end - start) / 2);
  if (!(extents[axis] > 0)) return half;
  const low0 = [minX, minY, minZ][axis];

  const scale = BINS / extents[axis];
  const histogram = new Float64Array(BINS);
  let total = 0;
  for (let at = start; at < end; at++) {
    const t = order[at];
    // Never negative, so truncating is flooring.
    const scaled = ((centres[t * 3 + axis] - low0) * scale) | 0;
    const bin = scaled < BINS ? scaled : BINS - 1;
    bins[at] = bin;
    // A zero-area sliver still counts a little, so a region of slivers is split too.
    const weight = areas[t] + 1e-30;
    histogram[bin] += weight;
    total += weight;
  }
  let cut = 0;
  for (let sum = 0; cut < BINS - 1; cut++) {
    sum += histogram[cut];
    if (sum >= total / 2) break;
  }
  // Triangles in bins up to `cut` go low: partition in place, swapping only the pairs on the wrong sides.
  let low = start;
  let high = end - 1;
  for (;;) {
    while (low <= high && bins[low] <= cut) low++;
    while (low < high && bins[high] > cut) high--;
    if (low >= high) break;
    const swap = order[low];
    order[low] = order[high];
    order[high] = swap;
    bins[high] = bins[low];
    low++;
    high--;
  }
  return low === start || low === end ? half : low;
}

/** The tree's leaves, depth first with children in order: the order the tiler builds them in. */
export function listLeaves(tree: SplitNode): SplitNode[] {
  const leaves: SplitNode[] = [];
  const visit = (node: SplitNode): void => {
    if (node.children.length === 0) leaves.push(node);
    else node.children.forEach(visit);
  };
  visit(tree);
  return leaves;
}
