// The queries behind the sweep of versions left converting without a job (../conversion/sweep-stranded-models.ts).
import type { Db, ModelVersionRow } from '../../db/database.ts';
import { nowIso } from '../../db/timestamps.ts';

/** The stranded-version queries of the version repository, over an open database or a transaction. */
export function strandedVersionAccess(db: Db) {
  /**
   * Sets a version still `pending` or `processing` and untouched since `before` to `status`, in one statement, so a
   * conversion that moved on meanwhile or another process's sweep leaves it alone; the row, or undefined.
   */
  const settleUntouched = (
    modelId: string,
    number: number,
    before: string,
    status: 'pending' | 'failed',
    error: string | null,
  ): Promise<ModelVersionRow | undefined> =>
    db
      .updateTable('model_versions')
      .set({ status, progress: 0, error, updated_at: nowIso() })
      .where('model_id', '=', modelId)
      .where('number', '=', number)
      .where('status', 'in', ['pending', 'processing'])
      .where('updated_at', '<', before)
      .returningAll()
      .executeTakeFirst();

  return {
    /** Versions `pending` or `processing` that nothing has written since `before`, oldest first. */
    async untouchedInProgress(
      before: string,
      limit: number,
    ): Promise<{ model_id: string; number: number }[]> {
      return db
        .selectFrom('model_versions')
        .select(['model_id', 'number'])
        .where('status', 'in', ['pending', 'processing'])
        .where('updated_at', '<', before)
        .orderBy('updated_at')
        .limit(limit)
        .execute();
    },

    /**
     * Puts a version still `pending` or `processing` and untouched since `before` back to `pending`, for its lost
     * job to be queued again; the row, or undefined when a worker or another sweep came first.
     */
    requeueUntouched(modelId: string, number: number, before: string): Promise<ModelVersionRow | undefined> {
      return settleUntouched(modelId, number, before, 'pending', null);
    },

    /** Fails a version still `pending` or `processing` and untouched since `before`, as `requeueUntouched` does. */
    failUntouched(
      modelId: string,
      number: number,
      before: string,
      error: string,
    ): Promise<ModelVersionRow | undefined> {
      return settleUntouched(modelId, number, before, 'failed', error);
    },
  };
}
