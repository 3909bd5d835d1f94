import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// Jobs bound for a queue outside the database (BullMQ on Redis), written in the caller's transaction so a model
// row and its conversion job commit together; a relay hands each row to the queue after the commit and deletes it.
// The id is the job id the queue will use, so relaying a row twice adds the job once.
export async function up(db: Kysely<any>): Promise<void> {
  const timestamp = sql.raw(isPostgres(db) ? 'timestamptz' : 'text');

  await db.schema
    .createTable('job_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('subject', 'text')
    .addColumn('dedupe_key', 'text')
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('run_at', timestamp, (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_outbox_run_at').on('job_outbox').column('run_at').execute();
  await db.schema.createIndex('job_outbox_subject').on('job_outbox').column('subject').execute();
  // One waiting row per key, as the queue keeps one waiting job per key.
  await db.schema
    .createIndex('job_outbox_dedupe_key')
    .on('job_outbox')
    .column('dedupe_key')
    .unique()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_outbox').execute();
}
