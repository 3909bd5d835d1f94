import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { describe, it } from 'node:test';
import {
  BOUND_PARAMETER_LIMIT,
  dialectOf,
  RESERVED_PARAMETERS,
  rowChunks,
  rowsPerStatement,
} from '../../src/db/bound-parameters.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';

/** `count` rows of `columns` numbered columns (`c0`, `c1`, …). */
function rows(count: number, columns: number): Record<string, number>[] {
  return Array.from({ length: count }, (_, row) =>
    Object.fromEntries(
      Array.from({ length: columns }, (_, column) => [`c${column}`, row * columns + column]),
    ),
  );
}

const sizes = (chunks: unknown[][]) => chunks.map((chunk) => chunk.length);

// 32,766 = 6 × 5,461 and 65,535 = 5 × 13,107: rows that fill a statement to the last value.
const EXACT = { sqlite: { columns: 6, rows: 5_461 }, postgres: { columns: 5, rows: 13_107 } } as const;

void describe('rowChunks', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const { columns, rows: fit } = EXACT[dialect];

    void it(`fills a ${dialect} statement to exactly its limit, and starts another one row over`, () => {
      assert.equal(fit * columns, BOUND_PARAMETER_LIMIT[dialect]);
      assert.deepEqual(sizes(rowChunks(dialect, rows(fit, columns), 0)), [fit]);
      assert.deepEqual(sizes(rowChunks(dialect, rows(fit + 1, columns), 0)), [fit, 1]);
      assert.deepEqual(sizes(rowChunks(dialect, rows(3 * fit + 2, columns), 0)), [fit, fit, fit, 2]);
    });

    void it(`keeps the reserved values free on ${dialect}`, () => {
      const reserved = columns * 10;
      assert.deepEqual(sizes(rowChunks(dialect, rows(fit - 10, columns), reserved)), [fit - 10]);
      assert.deepEqual(sizes(rowChunks(dialect, rows(fit - 9, columns), reserved)), [fit - 10, 1]);
      assert.equal(
        rowsPerStatement(dialect, columns),
        Math.floor((BOUND_PARAMETER_LIMIT[dialect] - RESERVED_PARAMETERS) / columns),
      );
    });
  }

  void it('counts every column any row names, not only the first row’s', () => {
    const mixed = [{ a: 1 }, ...rows(5_461, 5), { a: 1, b: 2 }];
    // Seven distinct columns (c0–c4, a and b): 32,766 / 7 = 4,680 rows a statement.
    assert.deepEqual(sizes(rowChunks('sqlite', mixed, 0)), [4_680, 783]);
  });

  void it('keeps every row once, in order', () => {
    const all = rows(20_000, 7);
    assert.deepEqual(rowChunks('sqlite', all).flat(), all);
    assert.deepEqual(rowChunks('postgres', []), []);
  });

  void it('refuses a row wider than the limit, or no columns', () => {
    assert.throws(() => rowsPerStatement('sqlite', 32_767, 0), RangeError);
    assert.throws(() => rowsPerStatement('sqlite', 32_766, 1), RangeError);
    assert.equal(rowsPerStatement('sqlite', 32_766, 0), 1);
    assert.throws(() => rowsPerStatement('postgres', 0), RangeError);
    assert.throws(() => rowChunks('sqlite', [{}]), RangeError);
  });
});

for (const dialect of testDialects()) {
  void describe(`bound parameter limit (${dialect})`, () => {
    const database = useTestDatabase(dialect);
    const limit = BOUND_PARAMETER_LIMIT[dialect];
    const inList = (count: number) =>
      sql<{ n: number }>`select count(*) as n from (select 1 as one) as t where t.one in (${sql.join(
        Array.from({ length: count }, (_, i) => i + 1),
      )})`;

    void it('is the engine’s own: a statement binds exactly the limit, and not one value more', async () => {
      const { rows: found } = await inList(limit).execute(database().db);
      assert.equal(Number(found[0]!.n), 1);
      await assert.rejects(inList(limit + 1).execute(database().db));
    });

    if (dialect === 'sqlite')
      void it('is the number this better-sqlite3 build was compiled with', async () => {
        const { rows: options } = await sql<{
          compile_options: string;
        }>`pragma compile_options`.execute(database().db);
        const option = options.find((row) => row.compile_options.startsWith('MAX_VARIABLE_NUMBER='));
        assert.equal(option?.compile_options, `MAX_VARIABLE_NUMBER=${limit}`);
      });

    void it('names the engine of a database and of a transaction on it', async () => {
      const { db } = database();
      assert.equal(dialectOf(db), dialect);
      await db.transaction().execute(async (trx) => assert.equal(dialectOf(trx), dialect));
    });

    void it('lets a multi-row insert cut by rowChunks fill statements to the limit', async () => {
      const { db } = database();
      const { columns, rows: fit } = EXACT[dialect];
      const names = Array.from({ length: columns }, (_, column) => `c${column}`);
      await sql`create table bulk_probe (${sql.join(names.map((name) => sql`${sql.ref(name)} integer`))})`.execute(
        db,
      );
      const written = rows(2 * fit + 1, columns);
      const chunks = rowChunks(dialect, written, 0);
      assert.deepEqual(sizes(chunks), [fit, fit, 1]);
      const probe = db.withTables<{ bulk_probe: Record<string, number> }>();
      for (const chunk of chunks) await probe.insertInto('bulk_probe').values(chunk).execute();
      const { rows: counted } = await sql<{ n: number; top: number }>`
        select count(*) as n, max(c0) as top from bulk_probe`.execute(db);
      assert.equal(Number(counted[0]!.n), written.length);
      assert.equal(Number(counted[0]!.top), written.at(-1)!.c0);
    });
  });
}
