import type { Kysely } from 'kysely';

// A configuration's own thumbnail: the model drawn with the configuration's bindings over the present ones,
// rendered on the CPU as the model's is. Null until the first render.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('configurations').addColumn('thumbnail_key', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('configurations').dropColumn('thumbnail_key').execute();
}
