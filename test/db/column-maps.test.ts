// The column maps of the bulk writes (insert-rows.ts) against the tables the migrations create. The compiler checks a
// map names every column of the row type; only the database knows the types: on PostgreSQL each column's array is
// cast to its map's type, and a wrong one (integer for bigint, text for jsonb) fails or truncates only at run time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { MODEL_PART_COLUMNS, PART_PROPERTY_COLUMNS } from '../../src/catalog/part-rows.ts';
import { VERSION_PART_COLUMNS } from '../../src/catalog/versions/version-rows.ts';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import type { ColumnType } from '../../src/db/insert-rows.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';

/** Each bulk-written table's map. None leaves a column out: the writes fill defaulted ones too (the folded texts). */
const MAPS: Record<string, Readonly<Record<string, ColumnType>>> = {
  model_parts: MODEL_PART_COLUMNS,
  model_part_properties: PART_PROPERTY_COLUMNS,
  model_version_parts: VERSION_PART_COLUMNS,
};

/** Each column of `table` with its type: data_type on PostgreSQL, the declared type on SQLite. */
async function tableColumns(database: DatabaseHandle, table: string): Promise<Map<string, string>> {
  const query =
    database.dialect === 'postgres'
      ? sql<{ name: string; type: string }>`select column_name as name, data_type as type
          from information_schema.columns where table_schema = current_schema() and table_name = ${table}`
      : sql<{ name: string; type: string }>`select name, type from pragma_table_info(${table})`;
  const { rows } = await query.execute(database.db);
  return new Map(rows.map((row) => [row.name, row.type]));
}

for (const dialect of testDialects()) {
  void describe(`bulk write column maps (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    for (const [table, map] of Object.entries(MAPS)) {
      void it(`${table}: the map names the table's columns, no more, no fewer`, async () => {
        const columns = await tableColumns(database(), table);
        assert.ok(columns.size > 0, `no table ${table}`);
        assert.deepEqual(Object.keys(map).sort(), [...columns.keys()].sort());
      });

      // SQLite enforces no declared type; PostgreSQL casts each array to the map's type.
      if (dialect === 'postgres')
        void it(`${table}: each column's array is cast to the column's own type`, async () => {
          const columns = await tableColumns(database(), table);
          // The column's own type, not one PostgreSQL would assign from: integer[] into bigint stops at 2^31.
          const wrong: string[] = [];
          for (const [column, cast] of Object.entries(map)) {
            const type = columns.get(column) ?? 'absent';
            if (cast !== type) wrong.push(`${table}.${column}: cast to ${cast}, column is ${type}`);
          }
          assert.deepEqual(wrong, []);
        });
    }
  });
}
