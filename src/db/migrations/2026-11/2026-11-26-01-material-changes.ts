import type { Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// What each raise of the material generation changed: the groups whose bindings a write touched (a JSON array), or
// the material whose own fields it changed, or neither when it touched too many groups to list. A lookup reply
// kept at one generation is brought up to date by re-reading only what the rows after it name, instead of every
// binding it shows. Only the newest rows are kept; a reply older than them is read again in full.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('material_changes')
    .addColumn('generation', isPostgres(db) ? 'bigint' : 'integer', (c) => c.primaryKey())
    .addColumn('material_id', 'integer')
    .addColumn('group_ids', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('material_changes').execute();
}
