import type { Kysely } from 'kysely';
import { backfillFolded } from './support/fold-backfill.ts';

// The parts' `q=` filter and the material list's name search compare folded copies the app writes beside the
// text (a part's name, a property's value, a material's name), as the model list's search does: neither
// database's lower() folds every script alike. Existing rows are folded here, in batches of distinct texts.

const COLUMNS = [
  ['model_parts', 'name', 'name_folded'],
  ['model_part_properties', 'value', 'value_folded'],
  ['materials', 'name', 'name_folded'],
] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const [table, , folded] of COLUMNS) {
    await db.schema
      .alterTable(table)
      .addColumn(folded, 'text', (col) => col.notNull().defaultTo(''))
      .execute();
  }
  for (const [table, source, folded] of COLUMNS) await backfillFolded(db, table, source, folded);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table, , folded] of COLUMNS) await db.schema.alterTable(table).dropColumn(folded).execute();
}
