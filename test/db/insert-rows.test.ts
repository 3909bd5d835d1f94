// Bulk inserts as each engine takes them: every value read back as written (text a literal or an array would have
// to escape, nulls, integers past 32 bits), statements cut where the engine needs it and no sooner.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import { MODEL_PART_COLUMNS } from '../../src/catalog/part-rows.ts';
import { replaceVersionParts } from '../../src/catalog/versions/version-rows.ts';
import { BOUND_PARAMETER_LIMIT, rowsPerStatement } from '../../src/db/bound-parameters.ts';
import type { Db } from '../../src/db/database.ts';
import {
  arrayLiteral,
  insertRows,
  POSTGRES_ROWS_PER_STATEMENT,
  type FullRow,
} from '../../src/db/insert-rows.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { createConvertingModel } from '../helpers/generated-parts.ts';

/** `pg`'s own writing of a parameter, which `arrayLiteral` must match. */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as {
  prepareValue: (value: unknown) => unknown;
};

/** Text that a SQL literal, a PostgreSQL array literal or a JSON document would each have to escape. */
const AWKWARD = [
  '',
  'NULL',
  'null',
  '"quoted"',
  "it's",
  'back\\slash \\"',
  '{braces, and commas}',
  'tab\tnew\nline\rreturn',
  'Größe 𝔸 ✓ 中文',
  ' leading and trailing ',
];

/** Model part row `index`: awkward text in every text column, counts past 32 bits. */
function partRow(modelId: string, index: number): FullRow<'model_parts'> {
  const text = AWKWARD[index % AWKWARD.length]!;
  return {
    model_id: modelId,
    part_index: index,
    group_id: `g-${index}-${text}`,
    name: text,
    name_folded: text.toLowerCase(),
    path: `/${text}/${index}`,
    triangle_count: 2 ** 40 + index,
    vertex_count: index,
    bounds: JSON.stringify({ min: [index, -0.5, 1e-7], max: [index + 1, 0.5, 1e7] }),
    properties: JSON.stringify({ Set: { [text]: text } }),
  };
}

/** `db` with every statement it runs recorded, and how many of them have settled (answered or failed). */
function recording(db: Db): { db: Db; statements: CompiledQuery[]; settled: () => number } {
  const statements: CompiledQuery[] = [];
  let settled = 0;
  const proxy = new Proxy(db, {
    get(target, key) {
      if (key === 'executeQuery')
        return (query: CompiledQuery) => {
          statements.push(query);
          return target.executeQuery(query).finally(() => settled++);
        };
      // Kysely's own fields are private (#): its methods run on the database itself, not on the proxy.
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { db: proxy, statements, settled: () => settled };
}

for (const dialect of testDialects()) {
  void describe(`insertRows (${dialect})`, () => {
    const database = useTestDatabase(dialect);
    const perStatement =
      dialect === 'postgres'
        ? POSTGRES_ROWS_PER_STATEMENT
        : rowsPerStatement('sqlite', Object.keys(MODEL_PART_COLUMNS).length);

    void it('reads back every value as written, over more than one statement', async () => {
      const modelId = `insert-rows-${dialect}`;
      await createConvertingModel(database(), modelId);
      const written = Array.from({ length: perStatement + 3 }, (_, index) => partRow(modelId, index));
      const { db, statements } = recording(database().db);
      await insertRows(db, 'model_parts', MODEL_PART_COLUMNS, written);
      assert.equal(statements.length, 2);
      for (const statement of statements)
        assert.ok(statement.parameters.length <= BOUND_PARAMETER_LIMIT[dialect] - 64);
      if (dialect === 'postgres')
        assert.equal(statements[0]!.parameters.length, Object.keys(MODEL_PART_COLUMNS).length);
      const read = await database()
        .db.selectFrom('model_parts')
        .selectAll()
        .where('model_id', '=', modelId)
        .orderBy('part_index')
        .execute();
      assert.deepEqual(
        read.map((row) => ({
          ...row,
          triangle_count: Number(row.triangle_count),
          vertex_count: Number(row.vertex_count),
        })),
        written,
      );
    });

    void it('lets the event loop turn between two statements, inside a transaction too', async () => {
      const modelId = `insert-rows-turns-${dialect}`;
      await createConvertingModel(database(), modelId);
      const written = Array.from({ length: perStatement * 2 + 1 }, (_, index) => partRow(modelId, index));
      // What another request would need: a turn of the loop (a timer's, an I/O callback's) while the rows go in.
      let statements: CompiledQuery[] = [];
      const turns: number[] = [];
      const ticking = setInterval(() => turns.push(statements.length), 0);
      try {
        await database()
          .db.transaction()
          .execute(async (trx) => {
            const recorded = recording(trx);
            statements = recorded.statements;
            await insertRows(recorded.db, 'model_parts', MODEL_PART_COLUMNS, written);
          });
      } finally {
        clearInterval(ticking);
      }
      assert.equal(statements.length, 3);
      assert.ok(
        turns.some((count) => count > 0 && count < 3),
        `a timer ran between the statements (it ran after ${JSON.stringify(turns)} of them)`,
      );
    });

    void it(`reads its rows a statement's worth at a time, ${
      dialect === 'postgres'
        ? 'each while the statement before runs on the server'
        : 'each after the one before ran'
    }`, async () => {
      const modelId = `insert-rows-lazy-${dialect}`;
      await createConvertingModel(database(), modelId);
      const { db, statements, settled } = recording(database().db);
      // How many statements had been sent, and how many had settled, when each row was read.
      const readAt: [number, number][] = [];
      function* rows() {
        for (let index = 0; index < perStatement * 2 + 1; index++) {
          readAt.push([statements.length, settled()]);
          yield partRow(modelId, index);
        }
      }
      await insertRows(db, 'model_parts', MODEL_PART_COLUMNS, rows());
      assert.equal(statements.length, 3);
      const firstOf = (statement: number) => readAt[statement * perStatement];
      const lastOf = (statement: number) =>
        readAt[Math.min((statement + 1) * perStatement, readAt.length) - 1];
      // PostgreSQL's server inserts one statement's rows while the next statement's are built; SQLite's statements
      // run on this thread, so the rows wait for the statement before to end.
      const settledBefore = (statement: number) =>
        dialect === 'postgres' ? Math.max(0, statement - 1) : statement;
      assert.deepEqual(
        [0, 1, 2].map((statement) => [firstOf(statement), lastOf(statement)]),
        [0, 1, 2].map((statement) => [
          [statement, settledBefore(statement)],
          [statement, settledBefore(statement)],
        ]),
      );
      const count = await database()
        .db.selectFrom('model_parts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('model_id', '=', modelId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), perStatement * 2 + 1);
    });

    void it('fails with the statement the engine refuses, and sends none after it', async () => {
      const modelId = `insert-rows-refused-${dialect}`;
      await createConvertingModel(database(), modelId);
      // The first statement's last row repeats its first one's key; the rows after it fill two statements more.
      const written = Array.from({ length: perStatement * 3 }, (_, index) =>
        partRow(modelId, index === perStatement - 1 ? 0 : index),
      );
      await assert.rejects(
        database()
          .db.transaction()
          .execute((trx) => insertRows(trx, 'model_parts', MODEL_PART_COLUMNS, written)),
        /unique|duplicate/i,
      );
      const { db, statements } = recording(database().db);
      await assert.rejects(insertRows(db, 'model_parts', MODEL_PART_COLUMNS, written), /unique|duplicate/i);
      assert.equal(statements.length, 1, 'no statement after the refused one');
      const count = await database()
        .db.selectFrom('model_parts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('model_id', '=', modelId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0, 'nothing of the refused statement stays');
    });

    void it('writes nulls into nullable columns, and nothing for no rows', async () => {
      const modelId = `insert-rows-nulls-${dialect}`;
      await createConvertingModel(database(), modelId);
      const { db, statements } = recording(database().db);
      await insertRows(db, 'model_parts', MODEL_PART_COLUMNS, []);
      assert.equal(statements.length, 0);
      const rows = [0, 1, 2].map((index) => {
        const { model_id, part_index, group_id, name, path, bounds, properties } = partRow(modelId, index);
        return {
          ...{ model_id, part_index, group_id, name, path, bounds, properties },
          version: 1,
          triangle_count: index,
          vertex_count: index,
          geometry_hash: index === 1 ? 'ab'.repeat(32) : null,
          transform_hash: null,
          properties_hash: index === 2 ? '' : null,
          material_hash: null,
        };
      });
      await replaceVersionParts(database().db, modelId, 1, rows);
      const read = await database()
        .db.selectFrom('model_version_parts')
        .selectAll()
        .where('model_id', '=', modelId)
        .orderBy('part_index')
        .execute();
      assert.deepEqual(read, rows);
    });
  });
}

void describe('arrayLiteral', () => {
  void it("writes a column's values as pg writes an array parameter, and leaves other kinds to pg", () => {
    const values: unknown[][] = [
      [...AWKWARD, null, undefined],
      [0, -1, 2.5, 2 ** 40 + 1, 1e-7, null],
      [2n ** 63n - 1n, null],
    ];
    for (const column of values) assert.equal(arrayLiteral(column), prepareValue(column));
    const dated = [new Date(0), 'text'];
    assert.equal(arrayLiteral(dated), dated);
  });
});
