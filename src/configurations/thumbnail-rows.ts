// The configurations' rows their thumbnails need: which a model has, and the key each points at.
import type { Db } from '../db/database.ts';

/** The thumbnail reads and writes of the configuration repository. */
export function createThumbnailRows(db: Db) {
  return {
    /** The ids of a model's configurations. */
    async idsOf(modelId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('configurations')
        .select('id')
        .where('model_id', '=', modelId)
        .execute();
      return rows.map((row) => row.id);
    },

    /**
     * Points a configuration at a new thumbnail; answers the key it replaces (null when none, or when it is the
     * same), or undefined when the configuration is gone and the new file should be removed.
     */
    async setThumbnail(id: string, key: string): Promise<string | null | undefined> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('configurations')
          .select('thumbnail_key')
          .where('id', '=', id)
          .executeTakeFirst();
        if (!row) return undefined;
        await trx.updateTable('configurations').set({ thumbnail_key: key }).where('id', '=', id).execute();
        return row.thumbnail_key === key ? null : row.thumbnail_key;
      });
    },
  };
}
