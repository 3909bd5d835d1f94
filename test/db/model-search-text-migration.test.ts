// The migration that adds the models' folded search columns fills them for the models already stored.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as searchText from '../../src/db/migrations/2026-11/2026-11-30-02-model-search-text.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { insertBareModelRow } from '../helpers/model-row.ts';

for (const dialect of testDialects()) {
  void describe(`model search text migration (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('folds the name, description and file name of every existing model', async () => {
      // Back to the schema before the migration, with a model stored as it was then.
      await searchText.down(database().db);
      await insertBareModelRow(database().db, '00000000-0000-4000-8000-0000000000aa', 'ÉCOLE Hauptstraße', {
        description: 'Cafe\u0301',
        original_filename: 'ΟΔΟΣ.IFC',
        format: 'ifc',
        status: 'pending',
        progress: 0,
        source_key: 'models/x/source.ifc',
      });
      await searchText.up(database().db);
      const row = await database()
        .db.selectFrom('models')
        .select(['name_folded', 'description_folded', 'original_filename_folded'])
        .executeTakeFirstOrThrow();
      assert.deepEqual(row, {
        name_folded: 'école hauptstrasse',
        description_folded: 'café',
        original_filename_folded: 'οδοσ.ifc',
      });
    });
  });
}
