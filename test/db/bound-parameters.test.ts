import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { describe, it } from 'node:test';
import {
  BOUND_PARAMETER_LIMIT,
  dialectOf,
  RESERVED_PARAMETERS,
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

// 32,766 = 6 × 5,461 and 65,535 = 5 × 13,107: rows that fill a statement to the last value.
const EXACT = { sqlite: { columns: 6, rows: 5_461 }, postgres: { columns: 5, rows: 13_107 } } as const;

void describe('rowsPerStatement', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    const { columns, rows: fit } = EXACT[dialect];

    void it(`fills a ${dialect} statement to exactly its limit, less the reserved values`, () => {
      assert.equal(fit * columns, BOUND_PARAMETER_LIMIT[dialect]);
      assert.equal(rowsPerStatement(dialect, columns, 0), fit);
      assert.equal(rowsPerStatement(dialect, columns, columns * 10), fit - 10);
      assert.equal(rowsPerStatement(dialect, columns, columns * 10 - 1), fit - 10);
      assert.equal(
        rowsPerStatement(dialect, columns),
        Math.floor((BOUND_PARAMETER_LIMIT[dialect] - RESERVED_PARAMETERS) / columns),
      );
    });
  }

  void it('refuses a row wider than the limit, or no columns', () => {
    assert.throws(() => rowsPerStatement('sqlite', 32_767, 0), RangeError);
    assert.throws(() => rowsPerStatement('sqlite', 32_766, 1), RangeError);
    assert.equal(rowsPerStatement('sqlite', 32_766, 0), 1);
    assert.throws(() => rowsPerStatement('postgres', 0), RangeError);
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

    void it('lets a multi-row insert of rowsPerStatement rows fill a statement to the limit', async () => {
      const { db } = database();
      const { columns, rows: fit } = EXACT[dialect];
      const names = Array.from({ length: columns }, (_, column) => `c${column}`);
      await sql`create table bulk_probe (${sql.join(names.map((name) => sql`${sql.ref(name)} integer`))})`.execute(
        db,
      );
      const written = rows(rowsPerStatement(dialect, columns, 0), columns);
      assert.equal(written.length, fit);
      const probe = db.withTables<{ bulk_probe: Record<string, number> }>();
      await probe.insertInto('bulk_probe').values(written).execute();
      const { rows: counted } = await sql<{ n: number; top: number }>`
        select count(*) as n, max(c0) as top from bulk_probe`.execute(db);
      assert.equal(Number(counted[0]!.n), written.length);
      assert.equal(Number(counted[0]!.top), written.at(-1)!.c0);
    });
  });
}
