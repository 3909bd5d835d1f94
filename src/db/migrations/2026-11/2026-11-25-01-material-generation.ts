import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// One counter that every change able to alter a bulk lookup's answer raises (a bind, an unbind, a material's
// update or deletion, a model's deletion taking bindings with it), so that a lookup reply kept under one value is
// known good while the counter holds it, in every API process sharing the database. SQLite has one writer at a
// time: a one-row table raised inside the writing transaction. On PostgreSQL a row would serialise every binding
// commit behind its lock; a sequence, raised right after the commit, holds no lock. Its first value is taken
// here so that `last_value` moves with the first raise.
export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql`create sequence material_generation`.execute(db);
    await sql`select nextval('material_generation')`.execute(db);
    return;
  }
  await db.schema
    .createTable('material_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('value', 'integer', (c) => c.notNull())
    .execute();
  await sql`insert into material_generation (id, value) values (1, 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) await sql`drop sequence material_generation`.execute(db);
  else await db.schema.dropTable('material_generation').execute();
}
