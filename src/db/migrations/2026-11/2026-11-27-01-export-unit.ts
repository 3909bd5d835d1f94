import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// STL and 3MF exports are written in a chosen length unit, which becomes part of what names an export. The table is a
// cache of files that can be made again, and SQLite cannot change a primary key in place: it is made anew, and every
// export is written again on its next request (the files of the old rows stay in the model's folder until it goes).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_exports').execute();
  await createTable(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_exports').execute();
  await createTable(db, false);
}

async function createTable(db: Kysely<any>, withUnit: boolean): Promise<void> {
  const pg = isPostgres(db);
  const timestamp = sql.raw(pg ? 'timestamptz' : 'text');
  const bigint = pg ? 'bigint' : 'integer';
  // Column names are checked when the builder knows them; with a column that may be absent they are plain text.
  let table: CreateTableBuilder<'model_exports', string> = db.schema
    .createTable('model_exports')
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('lod', 'integer', (c) => c.notNull())
    .addColumn('materials', 'text', (c) => c.notNull());
  if (withUnit) table = table.addColumn('unit', 'text', (c) => c.notNull());
  await table
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('blob_key', 'text')
    .addColumn('size', bigint)
    .addColumn('error', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint(
      'model_exports_pk',
      withUnit
        ? ['model_id', 'format', 'lod', 'materials', 'unit']
        : ['model_id', 'format', 'lod', 'materials'],
    )
    .execute();
}
