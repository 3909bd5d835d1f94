// How many values one statement may bind on each engine, and how many rows fit: a multi-row insert of N rows of C
// columns binds N × C values, and an engine refuses the whole statement past its limit ("too many SQL variables").
import { PostgresAdapter, type QueryExecutor } from 'kysely';
import type { DialectName } from './create-db.ts';

/**
 * Most values one statement may bind: SQLite's SQLITE_MAX_VARIABLE_NUMBER as better-sqlite3 builds it (32,766, the
 * default since SQLite 3.32; `pragma compile_options` shows it), and PostgreSQL's wire protocol, which counts a
 * statement's parameters in 16 bits (65,535).
 */
export const BOUND_PARAMETER_LIMIT: Readonly<Record<DialectName, number>> = {
  sqlite: 32_766,
  postgres: 65_535,
};

/**
 * Values a bulk statement keeps free by default beside its rows: its `where`, `on conflict … set` or `returning`
 * may bind a few, and a statement one value over the limit fails whole.
 */
export const RESERVED_PARAMETERS = 64;

/** The engine a database or transaction talks to, read from its query adapter. */
export function dialectOf(db: { getExecutor(): QueryExecutor }): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/**
 * Most rows of `columns` values one statement can carry on `dialect` with `reserved` values kept for the rest of
 * the statement. Throws when not even one row fits, which only a statement built wrongly can ask for.
 */
export function rowsPerStatement(
  dialect: DialectName,
  columns: number,
  reserved: number = RESERVED_PARAMETERS,
): number {
  if (!Number.isInteger(columns) || columns < 1)
    throw new RangeError(`columns must be a positive integer, not ${columns}`);
  const rows = Math.floor((BOUND_PARAMETER_LIMIT[dialect] - reserved) / columns);
  if (rows < 1)
    throw new RangeError(`a row of ${columns} values and ${reserved} more exceed ${dialect}'s limit`);
  return rows;
}
