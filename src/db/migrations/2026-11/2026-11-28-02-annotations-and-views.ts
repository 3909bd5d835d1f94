import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// Review data: annotations pinned to a model's parts and saved views of a model, both kept by group id (not by
// part row) so a reprocess, which writes the parts again with the same group ids, leaves them in place. Share
// links gain a flag saying whether their page shows the annotations.
export async function up(db: Kysely<any>): Promise<void> {
  const timestamp = sql.raw(isPostgres(db) ? 'timestamptz' : 'text');

  await db.schema
    .createTable('annotations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('group_id', 'text', (c) => c.notNull())
    // JSON [x, y, z] in the model's metres, +Y up.
    .addColumn('position', 'text', (c) => c.notNull())
    .addColumn('normal', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('author', 'text')
    // 0 or 1 on both databases, so the row type is the same.
    .addColumn('resolved', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('annotations_model_id')
    .on('annotations')
    .columns(['model_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('saved_views')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON: the camera, the hidden and isolated group ids and the section planes.
    .addColumn('camera', 'text', (c) => c.notNull())
    .addColumn('hidden', 'text', (c) => c.notNull())
    .addColumn('isolated', 'text', (c) => c.notNull())
    .addColumn('sections', 'text', (c) => c.notNull())
    .addColumn('xray', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('level', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('author', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('saved_views_model_id')
    .on('saved_views')
    .columns(['model_id', 'created_at'])
    .execute();

  await db.schema
    .alterTable('model_shares')
    .addColumn('annotations', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('model_shares').dropColumn('annotations').execute();
  await db.schema.dropTable('saved_views').execute();
  await db.schema.dropTable('annotations').execute();
}
