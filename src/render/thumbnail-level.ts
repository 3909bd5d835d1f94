// Above this a level is too heavy to rasterize quickly; a coarser one looks the same at thumbnail size.
const THUMBNAIL_TRIANGLE_LIMIT = 2_000_000;

/**
 * The level of detail a thumbnail is rendered from: the most detailed one of at most 2 M triangles, or the
 * coarsest when every level is bigger (a 20 M-triangle scan draws its LOD 2 of 3 M, not its LOD 1 of 10 M).
 */
export function thumbnailLevel<T extends { level: number; triangle_count: number }>(lods: readonly T[]): T {
  const byDetail = [...lods].sort((a, b) => a.level - b.level);
  return (
    byDetail.find((lod) => lod.triangle_count <= THUMBNAIL_TRIANGLE_LIMIT) ?? byDetail[byDetail.length - 1]
  );
}
