// Bulk inserts of many rows into one table, in the form each engine takes fastest. PostgreSQL receives them as
// `copy … from stdin`, up to 50,000 rows a copy, streamed on the transaction's own connection (copy-from-stdin.ts):
// the server loads the rows without array parameters to parse, and the next rows' text is made while it loads the
// ones before. SQLite binds the cells of as many rows as its limit on bound values allows; every full statement has
// the same SQL text, so the statement cache prepares it once. Neither goes through the query builder, whose
// compiling of statements of 30,000 values was a quarter of SQLite's time. bench/part-rows.ts and BENCHMARKS.md
// have the figures. SQLite's statements run on the service's own thread, so the event loop gets a turn between two
// of them: else a model of 100,000 parts completing held every request, a static file or a material lookup, for
// four seconds.
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { CompiledQuery, type Insertable } from 'kysely';
import { dialectOf, rowsPerStatement } from './bound-parameters.ts';
import type { Database, Db } from './database.ts';

/** A full row of `table`: every column given, defaults included, so every row fills every field. */
export type FullRow<T extends keyof Database> = Required<Insertable<Database[T]>>;

/**
 * Every column of `table`, in the order its rows are written, each set to `true`: listed as a record so that the
 * compiler finds a column left out (both engines take each value as the text or number a row holds).
 */
export type TableColumns<T extends keyof Database> = { readonly [K in keyof FullRow<T>]: true };

/** Rows of COPY text made at a time, for the connection to send while the next are made. */
export const POSTGRES_ROWS_PER_CHUNK = 5_000;

/**
 * Rows a copy carries at most: a bigger model takes several, each far inside the statement timeout (200,000 rows
 * copy in 2–3 s on 2 busy cores).
 */
export const POSTGRES_ROWS_PER_COPY = 50_000;

/**
 * Inserts `rows` into `table`, each row with every column of `columns`, in as few statements as each engine allows:
 * copies of up to {@link POSTGRES_ROWS_PER_COPY} rows on PostgreSQL, statements cut by the limit on bound values on
 * SQLite. Other work runs between two statements: rows that must appear at once go in inside a transaction. `rows`
 * is read a piece at a time, so a generator builds each piece's rows after the one before went (on PostgreSQL, while
 * the server loads it).
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
    const text = `copy ${quoted(table)} (${list}) from stdin`;
    // A copy a bounded number of rows, each well inside the statement timeout however many rows there are.
    for (let next = source.next(); !next.done; next = source.next()) {
      const rows = prepend(next.value, limit(source, POSTGRES_ROWS_PER_COPY - 1));
      await db.executeQuery(CompiledQuery.raw(text, [copyChunks<FullRow<T>>(rows, names)]));
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

/** The characters COPY's text format writes as escapes: a backslash, a tab, a new line and a carriage return. */
const COPY_SPECIALS = /[\\\t\n\r]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/**
 * A value as a field of COPY's text format: `\N` for null, text with its backslashes, tabs and line ends escaped,
 * numbers as digits; a `Date` as its ISO time. Throws for anything else, which no column here holds.
 */
export function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string') return value.replace(COPY_SPECIALS, (special) => COPY_ESCAPES[special]!);
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (value instanceof Date) return value.toISOString();
  throw new TypeError(`a value of type ${typeof value} cannot be copied`);
}

/** The rows as COPY text, {@link POSTGRES_ROWS_PER_CHUNK} rows a chunk, each made when the stream asks for it. */
function* copyChunks<R>(rows: Iterator<R>, names: readonly (keyof R & string)[]): Generator<string> {
  for (;;) {
    const chunk = take(rows, POSTGRES_ROWS_PER_CHUNK);
    if (chunk.length === 0) return;
    const lines = new Array<string>(chunk.length);
    for (let i = 0; i < chunk.length; i++) {
      const row = chunk[i]!;
      lines[i] = names.map((name) => copyField(row[name])).join('\t');
    }
    yield `${lines.join('\n')}\n`;
  }
}

/** `first`, then the rest of `rest`. */
function* prepend<R>(first: R, rest: Iterator<R>): Generator<R> {
  yield first;
  for (let next = rest.next(); !next.done; next = rest.next()) yield next.value;
}

/** The next `count` items of `source` at most, read as they are asked for. */
function limit<R>(source: Iterator<R>, count: number): Iterator<R> {
  let left = count;
  return {
    next: () => (left-- > 0 ? source.next() : { done: true, value: undefined }),
  };
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
