import { sql, type RawBuilder } from 'kysely';
import type { DialectName } from './create-db.ts';

/** Most ids one statement carries: bounds statement size and memory whatever the request holds. */
export const ID_CHUNK_SIZE = 10_000;

/**
 * A one-column table (`value`) of the given strings, passed as ONE bound parameter (a JSON array on SQLite, a
 * text[] on PostgreSQL), so bulk statements stay far below both drivers' parameter limits.
 */
export function stringSet(dialect: DialectName, values: readonly string[]): RawBuilder<{ value: string }> {
  return dialect === 'postgres'
    ? sql<{ value: string }>`select unnest(${values}::text[]) as value`
    : sql<{ value: string }>`select value from json_each(${JSON.stringify(values)})`;
}

/** `column in (<values>)` with the values bound as one parameter; see {@link stringSet}. */
export function inStringSet(
  column: string,
  dialect: DialectName,
  values: readonly string[],
): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} in (${stringSet(dialect, values)})`;
}

/** Splits a list into chunks of at most `size`. */
export function chunks<T>(values: readonly T[], size = ID_CHUNK_SIZE): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < values.length; start += size) result.push(values.slice(start, start + size));
  return result;
}
