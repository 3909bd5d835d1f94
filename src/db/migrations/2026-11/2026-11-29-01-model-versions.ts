import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../support/dialect.ts';

// Versions of a model. `models` and `model_parts` keep holding the current version, so every read stays as it
// was; each version keeps its own file, outputs and parts here until it is deleted. Existing models become
// version 1 of themselves, their parts copied with no fingerprints (they were converted before there were any).
export async function up(db: Kysely<any>): Promise<void> {
  const timestamp = sql.raw(isPostgres(db) ? 'timestamptz' : 'text');
  const bigint = isPostgres(db) ? 'bigint' : 'integer';

  await db.schema
    .alterTable('models')
    .addColumn('current_version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();

  await db.schema
    .createTable('model_versions')
    .addColumn('model_id', 'text', (c) => c.notNull().references('models.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('original_filename', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('file_size', bigint, (c) => c.notNull())
    .addColumn('source_key', 'text', (c) => c.notNull())
    .addColumn('source_entry', 'text')
    .addColumn('unit', 'text')
    .addColumn('up_axis', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('lods', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('thumbnail_key', 'text')
    .addColumn('tileset_key', 'text')
    .addColumn('triangle_count', bigint)
    .addColumn('vertex_count', bigint)
    .addColumn('part_count', 'integer')
    .addColumn('bounds', 'text')
    .addColumn('source_unit', 'text')
    .addColumn('source_up_axis', 'text')
    // The version that was current when this one was posted: what its parts continue and its diff counts compare to.
    .addColumn('based_on', 'integer')
    // JSON `{added, removed, changed, unchanged}` against `based_on`, set when the version completes.
    .addColumn('diff_counts', 'text')
    // Name of the scoped token that posted it; null for the admin token and for versions made by an upload.
    .addColumn('author', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('model_versions_pkey', ['model_id', 'number'])
    .execute();

  await db.schema
    .createTable('model_version_parts')
    .addColumn('model_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('part_index', 'integer', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('triangle_count', 'integer', (c) => c.notNull())
    .addColumn('vertex_count', 'integer', (c) => c.notNull())
    .addColumn('bounds', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull().defaultTo('{}'))
    // Hex fingerprints of the part (src/pipeline/types.ts); null on rows converted before fingerprints existed.
    .addColumn('geometry_hash', 'text')
    .addColumn('transform_hash', 'text')
    .addColumn('properties_hash', 'text')
    .addColumn('material_hash', 'text')
    .addPrimaryKeyConstraint('model_version_parts_pkey', ['model_id', 'version', 'part_index'])
    .addForeignKeyConstraint(
      'model_version_parts_version_fkey',
      ['model_id', 'version'],
      'model_versions',
      ['model_id', 'number'],
      (c) => c.onDelete('cascade'),
    )
    .execute();

  // Every existing model is its own version 1, with its outputs and parts as they are now.
  await sql`
    insert into model_versions (model_id, number, original_filename, format, file_size, source_key, source_entry,
      unit, up_axis, status, progress, error, lods, thumbnail_key, tileset_key, triangle_count, vertex_count,
      part_count, bounds, source_unit, source_up_axis, based_on, diff_counts, author, created_at, updated_at)
    select id, 1, original_filename, format, file_size, source_key, source_entry, unit, up_axis, status, progress,
      error, lods, null, tileset_key, triangle_count, vertex_count, part_count, bounds, source_unit,
      source_up_axis, null, null, null, created_at, updated_at
    from models`.execute(db);
  await sql`
    insert into model_version_parts (model_id, version, part_index, group_id, name, path, triangle_count,
      vertex_count, bounds, properties)
    select model_id, 1, part_index, group_id, name, path, triangle_count, vertex_count, bounds, properties
    from model_parts`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('model_version_parts').execute();
  await db.schema.dropTable('model_versions').execute();
  await db.schema.alterTable('models').dropColumn('current_version').execute();
}
