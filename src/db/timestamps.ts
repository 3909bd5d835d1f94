/** The current time as the ISO 8601 UTC string with milliseconds every API shows. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Normalises a stored timestamp (a `Date` from PostgreSQL, text from SQLite) to ISO 8601 UTC with milliseconds. */
export function toIso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}
