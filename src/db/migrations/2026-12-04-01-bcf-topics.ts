import { sql, type Kysely } from 'kysely';
import { isPostgres } from './support/dialect.ts';

// BCF topics imported from other tools: what a topic says beyond the annotation or saved view it became (title,
// type, status, priority, labels, due date, assignee, stage, description, comments), so an export writes it again.
// A topic that became neither (no viewpoint, no camera, no part of the model) is an unpinned note: a row with
// neither link. A topic goes with the annotation or view it became.
export async function up(db: Kysely<any>): Promise<void> {
  const timestamp = sql.raw(isPostgres(db) ? 'timestamptz' : 'text');
  await db.schema
    .createTable('review_topics')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('annotation_id', 'text', (c) => c.references('annotations.id').onDelete('cascade'))
    .addColumn('view_id', 'text', (c) => c.references('saved_views.id').onDelete('cascade'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('topic_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('priority', 'text')
    // JSON array of strings.
    .addColumn('labels', 'text', (c) => c.notNull())
    .addColumn('due_date', timestamp)
    .addColumn('assigned_to', 'text')
    .addColumn('stage', 'text')
    .addColumn('description', 'text')
    .addColumn('author', 'text')
    // JSON array of {guid, date, author, text, modified_date, modified_author}, in the file's order.
    .addColumn('comments', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('modified_at', timestamp)
    .addColumn('modified_author', 'text')
    .execute();
  await db.schema
    .createIndex('review_topics_model_id')
    .on('review_topics')
    .columns(['model_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('review_topics').execute();
}
