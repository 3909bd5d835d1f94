// The migration that makes searches accent-insensitive folds again every folded copy already stored, and its down
// folds them back as they were.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import * as accentBlind from '../../src/db/migrations/2026-12-02-01-accent-blind-search.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { addModelWithParts } from '../helpers/model-with-parts.ts';
import { insertRawMaterial } from '../helpers/raw-material.ts';

/** Every folded column, read back row by row. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- every table, as the migration sees them
async function foldedColumns(db: Kysely<any>): Promise<Record<string, string[]>> {
  const column = async (table: string, folded: string, order: string) =>
    (await db.selectFrom(table).select(folded).orderBy(order).execute()).map(
      (row: Record<string, string>) => row[folded]!,
    );
  return {
    model: [
      ...(await column('models', 'name_folded', 'id')),
      ...(await column('models', 'description_folded', 'id')),
      ...(await column('models', 'original_filename_folded', 'id')),
    ],
    parts: await column('model_parts', 'name_folded', 'part_index'),
    values: await column('model_part_properties', 'value_folded', 'part_index'),
    materials: await column('materials', 'name_folded', 'id'),
  };
}

for (const dialect of testDialects()) {
  void describe(`accent-blind search migration (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('folds stored names, values and file names without accents, and back', async () => {
      const modelId = '00000000-0000-4000-8000-0000000000ac';
      await addModelWithParts(database(), modelId, ['g0', 'g1']);
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- every table, as the migration sees them
      const db = database().db as unknown as Kysely<any>;
      await db
        .updateTable('models')
        .set({ name: 'Écrou Ørsted', description: 'Cafe\u0301 STRAẞE', original_filename: 'ÉCROU.STEP' })
        .execute();
      await db
        .updateTable('model_parts')
        .set({ name: sql<string>`case when part_index = 0 then 'Łódź' else 'Ελληνικά' end` })
        .execute();
      await db
        .insertInto('model_part_properties')
        .values(
          ['Æble', 'हिंदी'].map((value, index) => ({
            model_id: modelId,
            part_index: index,
            set_name: 'Extras',
            property_name: 'Kind',
            value_type: 'string',
            value,
          })),
        )
        .execute();
      await insertRawMaterial(db, 'Größe Ω');

      await accentBlind.down(database().db);
      assert.deepEqual(await foldedColumns(db), {
        model: ['écrou ørsted', 'café strasse', 'écrou.step'],
        parts: ['łódź', 'ελληνικά'],
        values: ['æble', 'हिंदी'],
        materials: ['grösse ω'],
      });
      await accentBlind.up(database().db);
      assert.deepEqual(await foldedColumns(db), {
        model: ['ecrou orsted', 'cafe strasse', 'ecrou.step'],
        parts: ['lodz', 'ελληνικα'],
        // An Indic vowel sign is a letter, not an accent: it stays.
        values: ['aeble', 'हिंदी'],
        materials: ['grosse ω'],
      });
    });
  });
}
