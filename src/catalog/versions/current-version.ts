// The queries of the version repository that change which version a model serves: a converted version made
// current with its outputs and parts, a restore, and the current version's row kept in step when the model's own
// conversion (an upload, a reprocess) completes or fails; and the delete of any version but the current one.
import { sql } from 'kysely';
import type { Db, ModelVersionRow } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import { nowIso } from '../../db/timestamps.ts';
import { OUTPUT_COLUMNS, outputColumns, type ConversionRecord } from '../conversion/conversion-record.ts';
import type { JobQueue } from '../../jobs/queue.ts';
import { diffParts } from '../../part-diff/diff-parts.ts';
import type { DiffCounts } from './repository.ts';
import { lockModel } from '../../db/model-lock.ts';
import { versionJobSubject } from './schemas.ts';
import type { ThumbnailSwitch } from './version-thumbnail.ts';
import { thumbnailInUse } from './version-thumbnail.ts';
import {
  FILE_COLUMNS,
  makeCurrentIn,
  partRows,
  partsOf,
  pick,
  replaceVersionParts,
  toVersionPart,
  versionExists,
} from './version-rows.ts';

/** The current-version queries, over an open database or a transaction. */
export function currentVersionAccess(db: Db) {
  return {
    /**
     * Stores a version's finished conversion and parts, counts what changed against the version it was based on,
     * and makes it the model's current version, in one transaction. Undefined when the version (or its model) is
     * gone.
     */
    async complete(
      modelId: string,
      number: number,
      record: ConversionRecord,
      thumbnailKey: string | null,
    ): Promise<{ diff_counts: DiffCounts | null; thumbnail: ThumbnailSwitch } | undefined> {
      return inTransaction(db, async (trx) => {
        if (!(await lockModel(trx, modelId))) return undefined;
        const version = await trx
          .selectFrom('model_versions')
          .select('based_on')
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .executeTakeFirst();
        if (!version) return undefined;
        const rows = [...partRows(modelId, number, record.parts)];
        // A basis deleted meanwhile leaves nothing to count against.
        const basedOn = version.based_on;
        const counts =
          basedOn !== null && (await versionExists(trx, modelId, basedOn))
            ? diffParts(await partsOf(trx, modelId, basedOn), rows.map(toVersionPart)).counts
            : null;
        await trx
          .updateTable('model_versions')
          .set({
            status: 'completed',
            progress: 100,
            error: null,
            ...outputColumns(record),
            thumbnail_key: thumbnailKey,
            diff_counts: counts ? JSON.stringify(counts) : null,
            updated_at: nowIso(),
          })
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .execute();
        await replaceVersionParts(trx, modelId, number, rows);
        const thumbnail = await makeCurrentIn(trx, modelId, number);
        if (!thumbnail) return undefined;
        return { diff_counts: counts, thumbnail };
      });
    },

    /**
     * Makes a completed version the model's current one, its picture included; `converting` while the model's own
     * conversion (an upload's, a reprocess) is under way, whose result would land on the restored version; undefined
     * when the version is gone or not completed.
     */
    async makeCurrent(modelId: string, number: number): Promise<ThumbnailSwitch | 'converting' | undefined> {
      return inTransaction(db, async (trx) => {
        if (!(await lockModel(trx, modelId))) return undefined;
        const model = await trx
          .selectFrom('models')
          .select('status')
          .where('id', '=', modelId)
          .executeTakeFirstOrThrow();
        if (model.status === 'pending' || model.status === 'processing') return 'converting' as const;
        return makeCurrentIn(trx, modelId, number);
      });
    },

    /**
     * After the model's own conversion (an upload, a reprocess) completed, in its transaction: its current
     * version row takes the model's file, outputs and parts, so the version list and a later restore see them.
     */
    async recordCurrentFromModel(modelId: string, parts: ConversionRecord['parts']): Promise<void> {
      const model = await db.selectFrom('models').selectAll().where('id', '=', modelId).executeTakeFirst();
      if (!model) return;
      const number = model.current_version;
      await db
        .updateTable('model_versions')
        .set({
          ...pick(model, FILE_COLUMNS),
          ...pick(model, OUTPUT_COLUMNS),
          status: 'completed',
          progress: 100,
          error: null,
          updated_at: nowIso(),
        })
        .where('model_id', '=', modelId)
        .where('number', '=', number)
        .execute();
      await replaceVersionParts(db, modelId, number, partRows(modelId, number, parts));
    },

    /** After the model's own conversion failed: its current version row says so too. */
    async recordCurrentFailed(modelId: string, error: string): Promise<void> {
      await db
        .updateTable('model_versions')
        .set({ status: 'failed', progress: 0, error, updated_at: nowIso() })
        .where('model_id', '=', modelId)
        .where('number', '=', db.selectFrom('models').select('current_version').where('id', '=', modelId))
        .execute();
    },

    /**
     * Deletes a version with its parts unless it is the current one, and cancels its conversion if still queued
     * (in the same transaction, as deleting a model cancels its job; a conversion already running finds the
     * version gone and removes what it wrote). `deleted` with its row (and whether its picture's file is named by
     * the model or another version too), `current` when it is the model's current version, or undefined when there
     * is no such version.
     */
    async delete(
      modelId: string,
      number: number,
      queue: Pick<JobQueue, 'cancelQueued'>,
    ): Promise<{ deleted: ModelVersionRow; thumbnailInUse: boolean } | { current: true } | undefined> {
      return inTransaction(db, async (trx) => {
        if (!(await lockModel(trx, modelId))) return undefined;
        const row = await trx
          .selectFrom('model_versions')
          .selectAll()
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .executeTakeFirst();
        if (!row) return undefined;
        // Deleted only while it is not current; a restore of it waits on the model's lock taken above.
        const result = await trx
          .deleteFrom('model_versions')
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .where(
            sql<boolean>`not exists (select 1 from models where id = ${modelId} and current_version = ${number})`,
          )
          .executeTakeFirst();
        if (Number(result.numDeletedRows) === 0) return { current: true as const };
        await queue.cancelQueued(versionJobSubject(modelId, number), { transaction: trx });
        const key = row.thumbnail_key;
        return { deleted: row, thumbnailInUse: key !== null && (await thumbnailInUse(trx, modelId, key)) };
      });
    },
  };
}
