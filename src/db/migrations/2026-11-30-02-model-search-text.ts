import type { Kysely } from 'kysely';

// The model list's `search` compares folded copies of the name, description and file name that the app writes
// beside them, since neither database's lower() folds every script alike. Existing rows are folded here.

// Frozen copy of the fold at the time of this migration (migrations never import app code).
function fold(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .toUpperCase()
    .toLowerCase()
    .replaceAll('ς', 'σ')
    .normalize('NFKC');
}

const COLUMNS = ['name_folded', 'description_folded', 'original_filename_folded'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('models')
      .addColumn(column, 'text', (col) => col.notNull().defaultTo(''))
      .execute();
  }
  const rows: { id: string; name: string; description: string; original_filename: string }[] = await db
    .selectFrom('models')
    .select(['id', 'name', 'description', 'original_filename'])
    .execute();
  for (const row of rows) {
    await db
      .updateTable('models')
      .set({
        name_folded: fold(row.name),
        description_folded: fold(row.description),
        original_filename_folded: fold(row.original_filename),
      })
      .where('id', '=', row.id)
      .execute();
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('models').dropColumn(column).execute();
}
