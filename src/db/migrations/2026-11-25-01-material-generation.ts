import { sql, type Kysely } from 'kysely';

// One counter that every change able to alter a bulk lookup's answer raises in its own transaction (a bind, an
// unbind, a material's update or deletion, a model's deletion taking bindings with it). A lookup reads it in the
// same snapshot as the bindings, so an answer kept under one value is exactly the answer while the counter holds
// it, in every API process sharing the database.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('material_generation')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into material_generation (id, value) values (1, 0)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('material_generation').execute();
}
