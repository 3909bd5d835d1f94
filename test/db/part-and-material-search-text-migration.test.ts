// The migration that adds the parts' and materials' folded search columns fills them for the rows already stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import * as searchText from '../../src/db/migrations/2026-12-01-02-part-and-material-search-text.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { addModelWithParts } from '../helpers/model-with-parts.ts';
import { insertRawMaterial } from '../helpers/raw-material.ts';

for (const dialect of testDialects()) {
  void describe(`part and material search text migration (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('folds every part name, property value and material name, over more texts than one batch', async () => {
      const groups = Array.from({ length: 1_203 }, (_, index) => `g${index}`);
      const modelId = '00000000-0000-4000-8000-0000000000ab';
      await addModelWithParts(database(), modelId, groups);
      // Back to the schema before the migration, with rows stored as they were then.
      await searchText.down(database().db);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the tables as they were before the migration
      const db = database().db as unknown as Kysely<any>;
      await db
        .updateTable('model_parts')
        .set({ name: sql<string>`'Straße ' || cast(part_index as text)` })
        .execute();
      await db
        .insertInto('model_part_properties')
        .values(
          groups.map((_, index) => ({
            model_id: modelId,
            part_index: index,
            set_name: 'Extras',
            property_name: 'Kind',
            value_type: 'string',
            value: index % 2 === 0 ? 'ÉCROU' : `Straße ${index}`,
          })),
        )
        .execute();
      await insertRawMaterial(db, 'Größe Ω');
      await searchText.up(database().db);

      const parts = await db
        .selectFrom('model_parts')
        .select(['part_index', 'name', 'name_folded'])
        .execute();
      assert.equal(parts.length, groups.length);
      for (const part of parts)
        assert.equal(part.name_folded, `straße ${part.part_index}`.replace('ß', 'ss'));
      const values = await db
        .selectFrom('model_part_properties')
        .select(['part_index', 'value_folded'])
        .execute();
      for (const value of values) {
        assert.equal(
          value.value_folded,
          value.part_index % 2 === 0 ? 'écrou' : `strasse ${value.part_index}`,
        );
      }
      const material = await db.selectFrom('materials').select('name_folded').executeTakeFirstOrThrow();
      assert.equal(material.name_folded, 'grösse ω');
    });
  });
}
