import { sql, type Kysely } from 'kysely';
import { isPostgres } from './support/dialect.ts';

// Configurations of a model: named sets of material bindings kept beside the material service's own, so a
// lookup can show one without changing what the model shows. Both go with their model; a configuration's binding
// goes with its material, as a material's bindings do when it is deleted.
export async function up(db: Kysely<any>): Promise<void> {
  const timestamp = sql.raw(isPostgres(db) ? 'timestamptz' : 'text');

  await db.schema
    .createTable('configurations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addUniqueConstraint('configurations_model_name', ['model_id', 'name'])
    .execute();

  await db.schema
    .createTable('configuration_bindings')
    .addColumn('configuration_id', 'text', (c) =>
      c.notNull().references('configurations.id').onDelete('cascade'),
    )
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('material_id', 'integer', (c) => c.notNull().references('materials.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('configuration_bindings_pk', ['configuration_id', 'group_id'])
    .execute();
  // The cascade from a deleted material, and the deletion's change log, find its rows by this.
  await db.schema
    .createIndex('configuration_bindings_material_id')
    .on('configuration_bindings')
    .column('material_id')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('configuration_bindings').execute();
  await db.schema.dropTable('configurations').execute();
}
