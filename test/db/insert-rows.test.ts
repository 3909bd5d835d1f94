// Bulk inserts as each engine takes them: every value read back as written (text a literal or COPY's format would
// have to escape, nulls, integers past 32 bits), one copy on PostgreSQL, statements cut where SQLite needs it and no
// sooner.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CompiledQuery } from 'kysely';
import { MODEL_PART_COLUMNS } from '../../src/catalog/part-rows.ts';
import { replaceVersionParts } from '../../src/catalog/versions/version-rows.ts';
import { BOUND_PARAMETER_LIMIT, rowsPerStatement } from '../../src/db/bound-parameters.ts';
import type { Db } from '../../src/db/database.ts';
import {
  copyField,
  insertRows,
  POSTGRES_ROWS_PER_CHUNK,
  POSTGRES_ROWS_PER_COPY,
  type FullRow,
} from '../../src/db/insert-rows.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { createConvertingModel } from '../helpers/generated-parts.ts';

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
  '\\.',
  '\\N',
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
    // Rows a SQLite statement carries, or a piece of PostgreSQL's copy.
    const perStatement =
      dialect === 'postgres'
        ? POSTGRES_ROWS_PER_CHUNK
        : rowsPerStatement('sqlite', Object.keys(MODEL_PART_COLUMNS).length);
    /** Statements sent for `pieces` statements' or pieces' worth of rows: PostgreSQL's copy is one. */
    const sent = (pieces: number) => (dialect === 'postgres' ? 1 : pieces);

    void it('reads back every value as written, over more than one statement or piece', async () => {
      const modelId = `insert-rows-${dialect}`;
      await createConvertingModel(database(), modelId);
      const written = Array.from({ length: perStatement + 3 }, (_, index) => partRow(modelId, index));
      const { db, statements } = recording(database().db);
      await insertRows(db, 'model_parts', MODEL_PART_COLUMNS, written);
      assert.equal(statements.length, sent(2));
      for (const statement of statements)
        assert.ok(statement.parameters.length <= BOUND_PARAMETER_LIMIT[dialect] - 64);
      if (dialect === 'postgres') assert.match(statements[0]!.sql, /^copy "model_parts" \(.*\) from stdin$/);
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

    void it('lets the event loop turn while the rows go in, inside a transaction too', async () => {
      const modelId = `insert-rows-turns-${dialect}`;
      await createConvertingModel(database(), modelId);
      const total = perStatement * 2 + 1;
      // What another request would need: a turn of the loop (a timer's, an I/O callback's) while the rows go in.
      let read = 0;
      function* rows() {
        for (let index = 0; index < total; index++, read++) yield partRow(modelId, index);
      }
      let statements: CompiledQuery[] = [];
      const turns: number[] = [];
      const ticking = setInterval(() => turns.push(read), 0);
      try {
        await database()
          .db.transaction()
          .execute(async (trx) => {
            const recorded = recording(trx);
            statements = recorded.statements;
            await insertRows(recorded.db, 'model_parts', MODEL_PART_COLUMNS, rows());
          });
      } finally {
        clearInterval(ticking);
      }
      assert.equal(statements.length, sent(3));
      assert.ok(
        turns.some((count) => count > 0 && count < total),
        `a timer ran between the first row read and the last (it ran after ${JSON.stringify(turns)} rows)`,
      );
    });

    void it(`reads its rows ${
      dialect === 'postgres'
        ? 'while the copy is on its way to the server'
        : "a statement's worth at a time, each after the one before ran"
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
      assert.equal(statements.length, sent(3));
      const firstOf = (piece: number) => readAt[piece * perStatement];
      const lastOf = (piece: number) => readAt[Math.min((piece + 1) * perStatement, readAt.length) - 1];
      // PostgreSQL reads one row to know there is a copy to send, and every other row once the copy is sent and not
      // yet answered; SQLite's statements run on this thread, so each statement's rows wait for the one before.
      const expected = (piece: number, last: boolean): [number, number] =>
        dialect === 'postgres' ? (piece === 0 && !last ? [0, 0] : [1, 0]) : [piece, piece];
      assert.deepEqual(
        [0, 1, 2].map((piece) => [firstOf(piece), lastOf(piece)]),
        [0, 1, 2].map((piece) => [expected(piece, false), expected(piece, true)]),
      );
      const count = await database()
        .db.selectFrom('model_parts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('model_id', '=', modelId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(count.n), perStatement * 2 + 1);
    });

    if (dialect === 'postgres')
      void it('copies a bounded number of rows a statement, so none nears the statement timeout', async () => {
        const modelId = 'insert-rows-copies';
        await createConvertingModel(database(), modelId);
        const { db, statements } = recording(database().db);
        const total = POSTGRES_ROWS_PER_COPY + 1;
        function* rows() {
          for (let index = 0; index < total; index++) yield partRow(modelId, index);
        }
        await insertRows(db, 'model_parts', MODEL_PART_COLUMNS, rows());
        assert.equal(statements.length, 2);
        const read = await database()
          .db.selectFrom('model_parts')
          .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.max('part_index').as('last')])
          .where('model_id', '=', modelId)
          .executeTakeFirstOrThrow();
        assert.deepEqual([Number(read.n), Number(read.last)], [total, total - 1]);
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

    if (dialect === 'postgres')
      void it('fails a copy whose rows cannot be written, stores none of it, and keeps the connection', async () => {
        const modelId = 'insert-rows-uncopyable';
        await createConvertingModel(database(), modelId);
        // The second piece's first row holds an object where text goes: the copy stops in the middle.
        const written = Array.from({ length: POSTGRES_ROWS_PER_CHUNK * 2 }, (_, index) => {
          const row = partRow(modelId, index);
          return index === POSTGRES_ROWS_PER_CHUNK
            ? { ...row, name: { not: 'text' } as unknown as string }
            : row;
        });
        await database()
          .db.connection()
          .execute(async (connection) => {
            await assert.rejects(
              connection
                .transaction()
                .execute((trx) => insertRows(trx, 'model_parts', MODEL_PART_COLUMNS, written)),
              /cannot be copied/,
            );
            // The same connection answers the next statement.
            const count = await connection
              .selectFrom('model_parts')
              .select((eb) => eb.fn.countAll<number>().as('n'))
              .where('model_id', '=', modelId)
              .executeTakeFirstOrThrow();
            assert.equal(Number(count.n), 0);
          });
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

void describe('copyField', () => {
  void it("writes each value as COPY's text format reads it back", () => {
    assert.equal(copyField(null), '\\N');
    assert.equal(copyField(undefined), '\\N');
    // A text `\N` or a line of `\.` must not read as a null or as the end of the data.
    assert.equal(copyField('\\N'), '\\\\N');
    assert.equal(copyField('\\.'), '\\\\.');
    assert.equal(copyField('tab\tnew\nline\rreturn'), 'tab\\tnew\\nline\\rreturn');
    assert.equal(copyField('"quoted", {braces} it\'s Größe 𝔸'), '"quoted", {braces} it\'s Größe 𝔸');
    assert.equal(copyField(''), '');
    assert.equal(copyField(2 ** 40 + 1), '1099511627777');
    assert.equal(copyField(-0), '0');
    assert.equal(copyField(12n ** 20n), String(12n ** 20n));
    assert.equal(copyField(new Date(Date.UTC(2026, 11, 2))), '2026-12-02T00:00:00.000Z');
    assert.throws(() => copyField({ a: 1 }), /cannot be copied/);
  });
});
