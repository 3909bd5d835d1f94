/** The current time as the ISO 8601 UTC string with milliseconds every API shows. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** Normalises a stored timestamp (a `Date` from PostgreSQL, text from SQLite) to ISO 8601 UTC with milliseconds. */
export function toIso(value: Date | string): string {
  // SQLite holds what nowIso() wrote: already in this form, so the hot reads skip a parse and a format.
  if (typeof value === 'string' && CANONICAL_ISO.test(value)) return value;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
