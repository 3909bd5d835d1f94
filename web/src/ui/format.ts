/** Human-readable numbers for the catalog and viewer. */

/** Bytes as B, KB, MB or GB with one decimal above KB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  const units = ['B', 'KB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/**
 * One formatter for every count: `toLocaleString` builds a formatter on each call, and a tree of 100,000 parts
 * spent 1.7 s of its first frame formatting their triangle counts that way.
 */
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** An integer count with thousands separators, or a dash when unknown. */
export function formatCount(count: number | null | undefined): string {
  return typeof count === 'number' ? COUNT_FORMAT.format(count) : '–';
}

/** An ISO timestamp as a short local date and time. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** What a level draws, in words: its triangles, its points (a point cloud), or both. */
export function formatDrawn(triangles: number, points: number): string {
  if (points > 0 && triangles === 0) return `${formatCount(points)} points`;
  if (points > 0) return `${formatCount(triangles)} triangles · ${formatCount(points)} points`;
  return `${formatCount(triangles)} triangles`;
}

/** True for a catalog record (model or part) that draws no triangles but has vertices: a point cloud. */
export function isPointCloud(record: {
  triangle_count: number | null;
  vertex_count: number | null;
}): boolean {
  return record.triangle_count === 0 && (record.vertex_count ?? 0) > 0;
}

/** A model's or part's size in words: triangles, or for a point cloud its points (its vertices). */
export function formatGeometry(record: {
  triangle_count: number | null;
  vertex_count: number | null;
}): string {
  return isPointCloud(record)
    ? `${formatCount(record.vertex_count)} points`
    : `${formatCount(record.triangle_count)} triangles`;
}
