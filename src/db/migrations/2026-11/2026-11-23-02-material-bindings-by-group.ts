import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// Bindings keyed by group id, for 100,000-id binds inside a second on PostgreSQL:
// - `group_id` is the primary key (the surrogate `id`, its sequence and its index are gone; nothing read them);
// - on PostgreSQL it compares with `COLLATE "C"` (byte order, as SQLite's BINARY): cheaper than the database's
//   collation for every index probe, and the order that bind, unbind and delete lock rows in;
// - no foreign key: its per-row check was a third of a bind's time. The material service keeps the reference
//   itself, locking the material row in each binding transaction and deleting a material's bindings with it;
// - on SQLite the table is WITHOUT ROWID, so a lookup by group id reads one b-tree instead of two.
export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const timestamp = sql.raw(pg ? 'timestamptz' : 'text');
  let create = db.schema
    .createTable('material_bindings_by_group')
    .addColumn('group_id', sql.raw(pg ? 'text collate "C"' : 'text'), (c) => c.notNull().primaryKey())
    .addColumn('material_id', pg ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull());
  if (!pg) create = create.modifyEnd(sql`without rowid`);
  await create.execute();
  await sql`
    insert into material_bindings_by_group (group_id, material_id, created_at)
    select group_id, material_id, created_at from material_bindings`.execute(db);
  await db.schema.dropTable('material_bindings').execute();
  await db.schema.alterTable('material_bindings_by_group').renameTo('material_bindings').execute();
  await db.schema
    .createIndex('material_bindings_material_id_group_id')
    .on('material_bindings')
    .columns(['material_id', 'group_id'])
    .execute();
}
