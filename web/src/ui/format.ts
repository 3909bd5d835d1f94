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

/** An integer count with thousands separators, or a dash when unknown. */
export function formatCount(count: number | null | undefined): string {
  return typeof count === 'number' ? count.toLocaleString('en-US') : '–';
}

/** An ISO timestamp as a short local date and time. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
