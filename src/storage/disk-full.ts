/** Error codes that mean the disk (or the database's disk) has no room left. */
const DISK_FULL_CODES = new Set([
  'ENOSPC', // Node: no space left on device
  'EDQUOT', // Node: disk quota exceeded
  'SQLITE_FULL', // better-sqlite3: database or disk is full
  '53100', // PostgreSQL: disk_full
]);

/** True when a storage or database error says the disk is full, a state freeing files can end. */
export function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && DISK_FULL_CODES.has(code);
}
