/**
 * What each level of a model draws, in words. The catalog counts triangles per level, and for a point cloud (no
 * triangles) only the model's points, which are LOD 0's; the thinner levels' points are counted by the view once
 * loaded (see `showLodCount`).
 */
import type { Lod } from '../api/types.ts';
import { formatCount, isPointCloud } from '../ui/format.ts';
import type { DescribeLod } from './lod-switcher.ts';

/** Describes the levels of `model`: triangles, or points for a point cloud. */
export function lodDescriber(model: {
  triangle_count: number | null;
  vertex_count: number | null;
}): DescribeLod {
  if (!isPointCloud(model)) return (lod: Lod) => `${formatCount(lod.triangle_count)} triangles`;
  return (lod: Lod) => (lod.level === 0 ? `${formatCount(model.vertex_count)} points` : 'fewer points');
}
