import type { Kysely } from 'kysely';

// A share link may show the model's configurations (read-only) and their files; links made before it do not.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('model_shares')
    .addColumn('configurations', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('model_shares').dropColumn('configurations').execute();
}
