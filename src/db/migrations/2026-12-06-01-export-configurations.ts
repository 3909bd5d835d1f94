import { sql, type CreateTableBuilder, type Kysely } from 'kysely';
import { isPostgres } from './support/dialect.ts';

// An export may bake one of the model's configurations instead of its present bindings, and each such file is cached
// on its own: the configuration's id joins what names an export, '' for none (a primary key's columns cannot be
// NULL). Rows kept so far are exports of no configuration and stay valid. SQLite cannot change a primary key in
// place, so there the rows are copied into a table made anew.
const OLD_KEY = ['model_id', 'format', 'lod', 'materials', 'unit'];
const NEW_KEY = [...OLD_KEY, 'configuration_id'];
const KEPT_COLUMNS = sql.raw(
  [
    ...OLD_KEY,
    'fingerprint',
    'status',
    'job_id',
    'blob_key',
    'size',
    'error',
    'created_at',
    'updated_at',
  ].join(', '),
);

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await db.schema
      .alterTable('model_exports')
      .addColumn('configuration_id', 'text', (c) => c.notNull().defaultTo(''))
      .execute();
    await replacePrimaryKey(db, NEW_KEY);
    return;
  }
  await copyIntoNewTable(db, true);
}

export async function down(db: Kysely<any>): Promise<void> {
  // The exports of a configuration have no place in the older key: they go, to be made again if asked for.
  await db.deleteFrom('model_exports').where('configuration_id', '<>', '').execute();
  if (isPostgres(db)) {
    await replacePrimaryKey(db, OLD_KEY);
    await db.schema.alterTable('model_exports').dropColumn('configuration_id').execute();
    return;
  }
  await copyIntoNewTable(db, false);
}

async function replacePrimaryKey(db: Kysely<any>, columns: string[]): Promise<void> {
  await db.schema.alterTable('model_exports').dropConstraint('model_exports_pk').execute();
  await db.schema.alterTable('model_exports').addPrimaryKeyConstraint('model_exports_pk', columns).execute();
}

/** SQLite: the table made anew with or without the configuration in its key, its rows copied over. */
async function copyIntoNewTable(db: Kysely<any>, withConfiguration: boolean): Promise<void> {
  // Column names are checked when the builder knows them; with a column that may be absent they are plain text.
  let table: CreateTableBuilder<'model_exports_next', string> = db.schema
    .createTable('model_exports_next')
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('lod', 'integer', (c) => c.notNull())
    .addColumn('materials', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull());
  if (withConfiguration)
    table = table.addColumn('configuration_id', 'text', (c) => c.notNull().defaultTo(''));
  await table
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('blob_key', 'text')
    .addColumn('size', 'integer')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('model_exports_pk', withConfiguration ? NEW_KEY : OLD_KEY)
    .execute();
  await sql`insert into model_exports_next (${KEPT_COLUMNS}) select ${KEPT_COLUMNS} from model_exports`.execute(
    db,
  );
  await db.schema.dropTable('model_exports').execute();
  await db.schema.alterTable('model_exports_next').renameTo('model_exports').execute();
}
