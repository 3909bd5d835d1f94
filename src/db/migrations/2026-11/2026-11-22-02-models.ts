import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// The model catalog: models, their parts, and the durable job queue that converts them.
export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const timestamp = sql.raw(pg ? 'timestamptz' : 'text');
  const bigint = pg ? 'bigint' : 'integer';

  await db.schema
    .createTable('models')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('original_filename', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('file_size', bigint, (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('source_entry', 'text')
    .addColumn('lods', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('thumbnail_key', 'text')
    .addColumn('triangle_count', bigint)
    .addColumn('vertex_count', bigint)
    .addColumn('part_count', 'integer')
    .addColumn('bounds', 'text')
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('source_unit', 'text')
    .addColumn('source_up_axis', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('models_created_at_id').on('models').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('models_status').on('models').column('status').execute();

  await db.schema
    .createTable('model_parts')
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('part_index', 'integer', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('triangle_count', bigint, (c) => c.notNull())
    .addColumn('vertex_count', bigint, (c) => c.notNull())
    .addColumn('bounds', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('model_parts_pk', ['model_id', 'part_index'])
    .execute();
  await db.schema.createIndex('model_parts_group_id').on('model_parts').column('group_id').execute();

  await db.schema
    .createTable('jobs')
    .addColumn('id', pg ? 'bigserial' : 'integer', (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('dedupe_key', 'text')
    .addColumn('run_at', timestamp, (c) => c.notNull())
    .addColumn('lease_until', timestamp)
    .addColumn('locked_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_status_run_at').on('jobs').columns(['status', 'run_at']).execute();
  await db.schema.createIndex('jobs_subject').on('jobs').column('subject').execute();
  // One waiting job per key: a second thumbnail request for the same model finds the first.
  await db.schema
    .createIndex('jobs_dedupe_key_queued')
    .on('jobs')
    .column('dedupe_key')
    .unique()
    .where(sql<boolean>`status = 'queued'`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('jobs').execute();
  await db.schema.dropTable('model_parts').execute();
  await db.schema.dropTable('models').execute();
}
