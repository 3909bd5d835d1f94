import { sql } from 'kysely';
import type { Kysely } from 'kysely';

// A version's number is never given again once deleted: a share link pinned to a deleted version stays closed,
// and a conversion still running for it cannot complete a newer version that took its number. `last_version` is
// the highest number a model ever gave; existing models start from their highest version, or from the highest a
// share link pins (a number whose version was deleted before this column).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('models')
    .addColumn('last_version', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
  await sql`
    update models set last_version = (
      select max(number) from (
        select max(number) as number from model_versions where model_versions.model_id = models.id
        union all
        select max(version) as number from model_shares where model_shares.model_id = models.id
        union all
        select current_version as number
      ) as numbers
    )
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('models').dropColumn('last_version').execute();
}
