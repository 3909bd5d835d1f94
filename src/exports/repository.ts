import type { ExpressionBuilder } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { Database, ModelExportRow } from '../db/database.ts';
import { nowIso } from '../db/timestamps.ts';
import type { ExportKey } from '../jobs/job-types.ts';

/** The export state's data access: the only code that queries `model_exports`. */
export type ExportRepository = ReturnType<typeof createExportRepository>;

/** The key's configuration as the table keeps it: '' for none, since a primary key's columns cannot be NULL. */
function storedConfiguration(key: ExportKey): string {
  // A job queued before exports could bake a configuration carries none.
  return key.configuration_id ?? '';
}

/** Creates the repository over an open database. */
export function createExportRepository({ db }: DatabaseHandle) {
  const matches = (key: ExportKey) => (eb: ExpressionBuilder<Database, 'model_exports'>) =>
    eb.and({
      model_id: key.model_id,
      format: key.format,
      lod: key.lod,
      materials: key.materials,
      unit: key.unit,
      configuration_id: storedConfiguration(key),
    });

  return {
    /** The export's current state, or undefined when it was never requested. */
    async get(key: ExportKey): Promise<ModelExportRow | undefined> {
      return db.selectFrom('model_exports').selectAll().where(matches(key)).executeTakeFirst();
    },

    /**
     * Records that the export of `fingerprint` is wanted: `queued`, no error. The stored file of an older
     * fingerprint stays until the new one replaces it. Returns false when the model no longer exists.
     */
    async request(key: ExportKey, fingerprint: string): Promise<boolean> {
      const now = nowIso();
      try {
        await db
          .insertInto('model_exports')
          .values({
            ...key,
            configuration_id: storedConfiguration(key),
            fingerprint,
            status: 'queued',
            created_at: now,
            updated_at: now,
          })
          .onConflict((oc) =>
            oc
              .columns(['model_id', 'format', 'lod', 'materials', 'unit', 'configuration_id'])
              .doUpdateSet({ fingerprint, status: 'queued', error: null, job_id: null, updated_at: now }),
          )
          .execute();
        return true;
      } catch (error) {
        // The model was deleted between the read and this write: its foreign key refuses the row.
        if (/foreign key/i.test((error as Error).message)) return false;
        throw error;
      }
    },

    /** Notes the job that makes the export. */
    async setJob(key: ExportKey, jobId: string): Promise<void> {
      await db
        .updateTable('model_exports')
        .set({ job_id: jobId, updated_at: nowIso() })
        .where(matches(key))
        .execute();
    },

    /** Marks a queued export as being made. */
    async markRunning(key: ExportKey): Promise<void> {
      await db
        .updateTable('model_exports')
        .set({ status: 'running', updated_at: nowIso() })
        .where(matches(key))
        .where('status', '=', 'queued')
        .execute();
    },

    /**
     * Records a finished file and returns the key of the file it replaces (null when none), or undefined when the
     * row is gone (the model was deleted meanwhile) and the new file should be removed.
     */
    async finish(
      key: ExportKey,
      file: { fingerprint: string; blob_key: string; size: number },
    ): Promise<string | null | undefined> {
      return db.transaction().execute(async (trx) => {
        const row = await trx
          .selectFrom('model_exports')
          .select('blob_key')
          .where(matches(key))
          .executeTakeFirst();
        if (!row) return undefined;
        await trx
          .updateTable('model_exports')
          .set({ ...file, status: 'ready', error: null, updated_at: nowIso() })
          .where(matches(key))
          .execute();
        return row.blob_key;
      });
    },

    /** Marks the export failed with the reason a client is shown. */
    async fail(key: ExportKey, error: string): Promise<void> {
      await db
        .updateTable('model_exports')
        .set({ status: 'failed', error, updated_at: nowIso() })
        .where(matches(key))
        .execute();
    },

    /**
     * Forgets every export of a configuration (it was deleted) and answers the blob keys of their files, for the
     * caller to remove; a job still making one finds its row gone and removes its own file.
     */
    async forgetConfiguration(modelId: string, configurationId: string): Promise<string[]> {
      const rows = await db
        .deleteFrom('model_exports')
        .where('model_id', '=', modelId)
        .where('configuration_id', '=', configurationId)
        .returning('blob_key')
        .execute();
      return rows.flatMap((row) => (row.blob_key ? [row.blob_key] : []));
    },
  };
}
