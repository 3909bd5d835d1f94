// Bulk inserts of many rows into one table, in the form each engine takes fastest. PostgreSQL receives each column
// as one array (`insert … select * from unnest($1::text[], …)`): a parameter a column however many rows a statement
// carries, where a multi-row VALUES binds one a cell for the server to parse and plan. SQLite binds the cells of as
// many rows as its limit on bound values allows; every full statement has the same SQL text, so the statement cache
// prepares it once. Neither goes through the query builder, whose compiling of statements of 30,000 values was a
// quarter of SQLite's time. bench/part-rows.ts: a model of 100,000 parts stored in two thirds of the time. On
// PostgreSQL the next statement's rows and array texts are built while the server inserts the statement before, where
// the two took turns: 100,000 parts stored in 3.2–3.4 s where they took 4.5–4.8 s (BENCHMARKS.md).
// SQLite's statements run on the service's own thread, so the event loop gets a turn between two of them: else a
// model of 100,000 parts completing held every request, a static file or a material lookup, for four seconds.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { CompiledQuery, type Insertable } from 'kysely';
import { dialectOf, rowsPerStatement } from './bound-parameters.ts';
import type { Database, Db } from './database.ts';

/** A column's PostgreSQL type, which its array is cast to (SQLite needs none). */
export type ColumnType = 'text' | 'integer' | 'bigint';

/** A full row of `table`: every column given, defaults included, so each column's array has a value a row. */
export type FullRow<T extends keyof Database> = Required<Insertable<Database[T]>>;

/** Every column of `table` with its PostgreSQL type, as the table's migrations created it. */
export type TableColumns<T extends keyof Database> = { readonly [K in keyof FullRow<T>]: ColumnType };

/**
 * Rows a PostgreSQL statement carries: 10,000, 50,000 and 200,000 a statement stored 200,000 property rows in 1.5,
 * 1.7 and 1.8 s, and a statement's message stays a few megabytes.
 */
export const POSTGRES_ROWS_PER_STATEMENT = 10_000;

/**
 * Inserts `rows` into `table`, each row with every column of `columns`, in as few statements as each engine allows.
 * Other work runs between two statements: rows that must appear at once go in inside a transaction. `rows` is read
 * a statement's worth at a time, so a generator builds each statement's rows after the turn before it (on
 * PostgreSQL, while the server inserts the statement before).
 */
export async function insertRows<T extends keyof Database & string>(
  db: Db,
  table: T,
  columns: TableColumns<T>,
  rows: Iterable<FullRow<T>>,
): Promise<void> {
  const names = Object.keys(columns) as (keyof FullRow<T> & string)[];
  const list = names.map(quoted).join(', ');
  const source = rows[Symbol.iterator]();
  if (dialectOf(db) === 'postgres') {
    const arrays = names
      .map((name, index) => `$${index + 1}::${(columns as Record<string, ColumnType>)[name]}[]`)
      .join(', ');
    const text = `insert into ${quoted(table)} (${list}) select * from unnest(${arrays})`;
    const nextParameters = (): unknown[] | undefined => {
      const chunk = take(source, POSTGRES_ROWS_PER_STATEMENT);
      return chunk.length > 0 ? names.map((name) => arrayLiteral(chunk.map((row) => row[name]))) : undefined;
    };
    for (let parameters = nextParameters(); parameters;) {
      const sent = db.executeQuery(CompiledQuery.raw(text, parameters));
      // Handled when awaited below; until then a statement the server refuses is no unhandled rejection.
      sent.catch(() => undefined);
      // Once the statement is on its way, the next one's rows are built while the server inserts these.
      await yieldToLoop();
      const next = nextParameters();
      await sent;
      parameters = next;
    }
    return;
  }
  const perStatement = rowsPerStatement('sqlite', names.length);
  const tuple = `(${names.map(() => '?').join(', ')})`;
  for (let first = true; ; first = false) {
    // PostgreSQL's statements wait on the network, which is the loop's turn; SQLite's run here, ~40 ms each.
    if (!first) await yieldToLoop();
    const chunk = take(source, perStatement);
    if (chunk.length === 0) return;
    const values: unknown[] = [];
    for (const row of chunk) for (const name of names) values.push(row[name]);
    const text = `insert into ${quoted(table)} (${list}) values ${Array(chunk.length).fill(tuple).join(', ')}`;
    await db.executeQuery(CompiledQuery.raw(text, values));
  }
}

/** The characters a quoted element of an array literal escapes: a double quote and a backslash. */
const ARRAY_ELEMENT_SPECIALS = /["\\]/g;

/**
 * A column's values as the PostgreSQL array literal `pg` would write for them (`{"a","b\\"c",12,NULL}`), so the
 * statement's text is made while the statement before it runs rather than when it is sent; values of any other
 * kind are left for `pg` to write.
 */
export function arrayLiteral(values: readonly unknown[]): string | readonly unknown[] {
  const elements = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value === null || value === undefined) elements[i] = 'NULL';
    else if (typeof value === 'string') elements[i] = `"${value.replace(ARRAY_ELEMENT_SPECIALS, '\\$&')}"`;
    else if (typeof value === 'number' || typeof value === 'bigint') elements[i] = `"${value}"`;
    else return values;
  }
  return `{${elements.join(',')}}`;
}

/** Up to `count` more items of `source`; none once it is done. */
function take<R>(source: Iterator<R>, count: number): R[] {
  const items: R[] = [];
  while (items.length < count) {
    const next = source.next();
    if (next.done) break;
    items.push(next.value);
  }
  return items;
}

/** An identifier quoted as both engines read it. */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
