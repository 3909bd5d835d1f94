import type { Kysely } from 'kysely';

// The version a share link pins: its page serves that version's levels whatever the model's current one is; null
// for a link that follows the current version (every link made before versions existed).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('model_shares').addColumn('version', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('model_shares').dropColumn('version').execute();
}
