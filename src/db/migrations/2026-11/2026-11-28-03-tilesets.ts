import type { Kysely } from 'kysely';

// The blob key of a model's 3D Tiles tileset (`models/<id>/tileset-<hash>/tileset.json`), its tiles beside it;
// null for a model below the tiling threshold or converted before tilesets existed.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').addColumn('tileset_key', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').dropColumn('tileset_key').execute();
}
