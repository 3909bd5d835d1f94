import type { Kysely } from 'kysely';
import { backfillFolded } from '../support/fold-backfill.ts';

// The model list's `search` compares folded copies of the name, description and file name that the app writes
// beside them, since neither database's lower() folds every script alike. Existing rows are folded here, in
// batches of distinct texts.

const COLUMNS = [
  ['name', 'name_folded'],
  ['description', 'description_folded'],
  ['original_filename', 'original_filename_folded'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [, folded] of COLUMNS) {
    await db.schema
      .alterTable('models')
      .addColumn(folded, 'text', (col) => col.notNull().defaultTo(''))
      .execute();
  }
  for (const [source, folded] of COLUMNS) await backfillFolded(db, 'models', source, folded);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [, folded] of COLUMNS) await db.schema.alterTable('models').dropColumn(folded).execute();
}
