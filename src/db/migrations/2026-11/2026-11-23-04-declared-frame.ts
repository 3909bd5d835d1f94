import type { Kysely } from 'kysely';

// The unit and up axis an uploader declared for a file that states none (STL, OBJ, PLY): null means the default,
// metres and +Y up. Kept on the model so a reprocess converts the same way.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').addColumn('unit', 'text').execute();
  await db.schema.alterTable('models').addColumn('up_axis', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').dropColumn('up_axis').execute();
  await db.schema.alterTable('models').dropColumn('unit').execute();
}
