import type { Kysely } from 'kysely';

// Part properties read from the source file. `model_parts.properties` holds each part's sets as JSON for the
// single-part route; `model_part_properties` holds the same values one row per property, so a `where=` filter is
// an indexed lookup on both databases instead of parsing every part's JSON. Rows go with their part's model.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('model_parts')
    .addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .createTable('model_part_properties')
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('part_index', 'integer', (c) => c.notNull())
    .addColumn('set_name', 'text', (c) => c.notNull())
    .addColumn('property_name', 'text', (c) => c.notNull())
    .addColumn('value_type', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('model_part_properties_lookup')
    .on('model_part_properties')
    .columns(['model_id', 'set_name', 'property_name', 'value', 'part_index'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_part_properties').execute();
  await db.schema.alterTable('model_parts').dropColumn('properties').execute();
}
