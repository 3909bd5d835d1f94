// A version made again, without a new number: a failed version converted again from the file it was posted with, as
// a reprocess converts a model again (only a failed version that is not the model's current one: the current
// version is the model's own conversion, which `POST /api/models/:id/reprocess` converts again); and the version a
// resumable upload made, which a retry of its request answers.
import type { Db, ModelVersionRow } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { nowIso } from '../../db/timestamps.ts';
import { JobName } from '../../jobs/job-types.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { lockModel } from '../../db/model-lock.ts';
import { versionJobSubject } from './schemas.ts';

/** What a request to convert a version again found: the version queued again (with its job), or why not. */
export type ReconvertOutcome =
  { queued: ModelVersionRow; jobId: string } | { refused: 'not-failed' | 'current' } | undefined;

/** The reconversion query, over an open database or a transaction. */
export function versionReconvertAccess(db: Db) {
  return {
    /**
     * Puts a failed version back to `pending` and queues its conversion in one transaction, under the model's
     * lock; the job is held until the caller promotes it after the commit. Undefined when the version (or its
     * model) does not exist.
     */
    async requeueFailed(
      modelId: string,
      number: number,
      queue: Pick<JobQueue, 'enqueue'>,
    ): Promise<ReconvertOutcome> {
      return inTransaction(db, async (trx) => {
        if (!(await lockModel(trx, modelId))) return undefined;
        const model = await trx
          .selectFrom('models')
          .select('current_version')
          .where('id', '=', modelId)
          .executeTakeFirstOrThrow();
        const row = await trx
          .selectFrom('model_versions')
          .select('status')
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .executeTakeFirst();
        if (!row) return undefined;
        if (model.current_version === number) return { refused: 'current' as const };
        if (row.status !== 'failed') return { refused: 'not-failed' as const };
        const queued = await trx
          .updateTable('model_versions')
          .set({ status: 'pending', progress: 0, error: null, updated_at: nowIso() })
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .returningAll()
          .executeTakeFirstOrThrow();
        const job = await queue.enqueue(
          JobName.ConvertModel,
          { model_id: modelId, version: number },
          {
            subject: versionJobSubject(modelId, number),
            dedupeKey: `convert:${modelId}:v${number}`,
            transaction: trx,
          },
        );
        return { queued, jobId: job.id };
      });
    },
  };
}

/** The version made from the finished resumable upload `uploadId`, of any model, or undefined. */
export async function versionMadeBy(db: Db, uploadId: string): Promise<ModelVersionRow | undefined> {
  return db.selectFrom('model_versions').selectAll().where('upload_id', '=', uploadId).executeTakeFirst();
}
