import { sql, type Kysely } from 'kysely';

// Where a model's thumbnail came from, `rendered` or `uploaded`, so the render that follows a material binding
// change never replaces a picture someone chose; and until when a render of it holds the model, so two workers
// never render the same model at once. Only an upload can be a JPEG; a PNG uploaded before this column counts as
// rendered (the bytes alone cannot tell).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').addColumn('thumbnail_source', 'text').execute();
  await db.schema.alterTable('models').addColumn('thumbnail_render_until', 'text').execute();
  await db
    .updateTable('models')
    .set({
      thumbnail_source: sql`case when thumbnail_key like '%.jpg' then 'uploaded' else 'rendered' end`,
    })
    .where('thumbnail_key', 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').dropColumn('thumbnail_render_until').execute();
  await db.schema.alterTable('models').dropColumn('thumbnail_source').execute();
}
