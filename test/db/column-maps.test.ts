// The column maps of the bulk writes (insert-rows.ts) against the tables the migrations create. The compiler checks a
// map names every column of the row type; a column the migrations add, or one the row type still names after a
// migration dropped it, shows only here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { MODEL_PART_COLUMNS, PART_PROPERTY_COLUMNS } from '../../src/catalog/part-rows.ts';
import { VERSION_PART_COLUMNS } from '../../src/catalog/versions/version-rows.ts';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';

/** Each bulk-written table's map. None leaves a column out: the writes fill defaulted ones too (the folded texts). */
const MAPS: Record<string, Readonly<Record<string, true>>> = {
  model_parts: MODEL_PART_COLUMNS,
  model_part_properties: PART_PROPERTY_COLUMNS,
  model_version_parts: VERSION_PART_COLUMNS,
};

/** The columns of `table`, as the database lists them. */
async function tableColumns(database: DatabaseHandle, table: string): Promise<string[]> {
  const query =
    database.dialect === 'postgres'
      ? sql<{ name: string }>`select column_name as name
          from information_schema.columns where table_schema = current_schema() and table_name = ${table}`
      : sql<{ name: string }>`select name from pragma_table_info(${table})`;
  const { rows } = await query.execute(database.db);
  return rows.map((row) => row.name);
}

for (const dialect of testDialects()) {
  void describe(`bulk write column maps (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    for (const [table, map] of Object.entries(MAPS)) {
      void it(`${table}: the map names the table's columns, no more, no fewer`, async () => {
        const columns = await tableColumns(database(), table);
        assert.ok(columns.length > 0, `no table ${table}`);
        assert.deepEqual(Object.keys(map).sort(), columns.sort());
      });
    }
  });
}
