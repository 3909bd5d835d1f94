import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// Exports of converted models (GLB, USDZ, OBJ, STL, 3MF): one row per model, format, level and material mode,
// holding the fingerprint of what the stored file was made from so a change of the model or its bindings shows.
export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const timestamp = sql.raw(pg ? 'timestamptz' : 'text');
  const bigint = pg ? 'bigint' : 'integer';

  await db.schema
    .createTable('model_exports')
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('lod', 'integer', (c) => c.notNull())
    .addColumn('materials', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('blob_key', 'text')
    .addColumn('size', bigint)
    .addColumn('error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('model_exports_pk', ['model_id', 'format', 'lod', 'materials'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_exports').execute();
}
