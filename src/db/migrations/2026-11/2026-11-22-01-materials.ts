import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// Materials and their bindings to group ids (leaf nodes of models).
export async function up(db: Kysely<any>): Promise<void> {
  const pg = isPostgres(db);
  const timestamp = pg ? 'timestamptz' : 'text';
  await db.schema
    .createTable('materials')
    .addColumn('id', pg ? 'bigserial' : 'integer', (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('diffuse_r', 'double precision', (c) => c.notNull())
    .addColumn('diffuse_g', 'double precision', (c) => c.notNull())
    .addColumn('diffuse_b', 'double precision', (c) => c.notNull())
    .addColumn('alpha', 'double precision', (c) => c.notNull())
    .addColumn('shininess', 'double precision', (c) => c.notNull())
    .addColumn('specular_r', 'double precision', (c) => c.notNull())
    .addColumn('specular_g', 'double precision', (c) => c.notNull())
    .addColumn('specular_b', 'double precision', (c) => c.notNull())
    .addColumn('ambient_r', 'double precision', (c) => c.notNull())
    .addColumn('ambient_g', 'double precision', (c) => c.notNull())
    .addColumn('ambient_b', 'double precision', (c) => c.notNull())
    .addColumn('metallic', 'double precision', (c) => c.notNull())
    .addColumn('roughness', 'double precision', (c) => c.notNull())
    .addColumn('reflectance', 'double precision', (c) => c.notNull())
    .addColumn('created_at', sql.raw(timestamp), (c) => c.notNull())
    .addColumn('updated_at', sql.raw(timestamp), (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('material_bindings')
    .addColumn('id', pg ? 'bigserial' : 'integer', (c) =>
      pg ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('material_id', pg ? 'bigint' : 'integer', (c) =>
      c.notNull().references('materials.id').onDelete('cascade'),
    )
    .addColumn('group_id', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', sql.raw(timestamp), (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('material_bindings_material_id_group_id')
    .on('material_bindings')
    .columns(['material_id', 'group_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('material_bindings').execute();
  await db.schema.dropTable('materials').execute();
}
