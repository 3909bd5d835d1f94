// The part of the model repository the conversion and thumbnail jobs write: a model's status and progress, its
// finished conversion (parts and levels), the sweep of stranded models, and its thumbnail with the render lease.
import type { Db, ModelRow } from '../db/database.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { insertRows } from '../db/insert-rows.ts';
import { lazyMap } from '../db/lazy-map.ts';
import { searchFold } from '../db/search-fold.ts';
import { nowIso } from '../db/timestamps.ts';
import { createVersionRepository } from './versions/repository.ts';
import { outputColumns, type ConversionRecord } from './conversion/conversion-record.ts';
import { MODEL_PART_COLUMNS, partColumns, replacePartPropertyRows } from './part-rows.ts';
import type { ThumbnailSource } from './repository.ts';
import type { ModelStatus } from './schemas.ts';

/** The conversion-state queries of the model repository, over a database or a transaction. */
export function modelStateAccess(db: Db) {
  return {
    /** Moves a model to a state with a progress and an error text. */
    async setStatus(
      id: string,
      status: ModelStatus,
      progress: number,
      error: string | null = null,
    ): Promise<boolean> {
      const result = await db
        .updateTable('models')
        .set({ status, progress, error, updated_at: nowIso() })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Ids of models `pending` or `processing` that nothing has written since `before`, oldest first. */
    async untouchedInProgress(before: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('models')
        .select('id')
        .where('status', 'in', ['pending', 'processing'])
        .where('updated_at', '<', before)
        .orderBy('updated_at')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    /**
     * Fails a model that is still `pending` or `processing` and untouched since `before`, in one statement, so a
     * conversion that moved on meanwhile, a reprocess, or another process's sweep leaves it alone. The row, or
     * undefined when it was left alone.
     */
    async failUntouched(id: string, before: string, error: string): Promise<ModelRow | undefined> {
      return db
        .updateTable('models')
        .set({ status: 'failed', progress: 0, error, updated_at: nowIso() })
        .where('id', '=', id)
        .where('status', 'in', ['pending', 'processing'])
        .where('updated_at', '<', before)
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * Puts a model still `pending` or `processing` and untouched since `before` back to `pending` (progress 0, no
     * error), in one statement, for its conversion to be queued again; the same guards as {@link failUntouched}. The
     * row, or undefined when it was left alone.
     */
    async requeueUntouched(id: string, before: string): Promise<ModelRow | undefined> {
      return db
        .updateTable('models')
        .set({ status: 'pending', progress: 0, error: null, updated_at: nowIso() })
        .where('id', '=', id)
        .where('status', 'in', ['pending', 'processing'])
        .where('updated_at', '<', before)
        .returningAll()
        .executeTakeFirst();
    },

    /** Records conversion progress while processing; never moves a model backwards or out of `processing`. */
    async setProgress(id: string, progress: number): Promise<void> {
      await db
        .updateTable('models')
        .set({ progress, updated_at: nowIso() })
        .where('id', '=', id)
        .where('status', '=', 'processing')
        .where('progress', '<', progress)
        .execute();
    },

    /** Stores a finished conversion and its parts in one transaction and marks the model completed. */
    async complete(id: string, record: ConversionRecord): Promise<boolean> {
      return inTransaction(db, async (trx) => {
        const result = await trx
          .updateTable('models')
          .set({
            status: 'completed',
            progress: 100,
            error: null,
            ...outputColumns(record),
            updated_at: nowIso(),
          })
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await trx.deleteFrom('model_parts').where('model_id', '=', id).execute();
        // Built a statement's worth at a time, between the turns the inserts give the loop (insert-rows.ts).
        const rows = lazyMap(record.parts, (part, index) => ({
          model_id: id,
          ...partColumns(part, index),
          name_folded: searchFold(part.name),
        }));
        await insertRows(trx, 'model_parts', MODEL_PART_COLUMNS, rows);
        await replacePartPropertyRows(
          trx,
          id,
          lazyMap(record.parts, (part, index) => ({ part_index: index, properties: part.properties ?? {} })),
        );
        // The version the model serves was converted again: its row keeps what a restore brings back.
        await createVersionRepository(trx).recordCurrentFromModel(id, record.parts);
        return true;
      });
    },

    /**
     * Puts a model back to `pending` with progress 0 and no error, unless it is already pending or processing.
     * Its LODs, parts and thumbnail stay (the API hides LODs until it completes) and are replaced when the next
     * conversion completes. Undefined when the model does not exist or is being converted.
     */
    async resetForReprocess(id: string): Promise<ModelRow | undefined> {
      return db
        .updateTable('models')
        .set({ status: 'pending', progress: 0, error: null, updated_at: nowIso() })
        .where('id', '=', id)
        .where('status', 'not in', ['pending', 'processing'])
        .returningAll()
        .executeTakeFirst();
    },
  };
}

/** The thumbnail-writing queries of the model repository: the picture's key and the render lease. */
export function thumbnailStateAccess(db: Db) {
  return {
    /**
     * Makes `key` the model's thumbnail, recording where it came from; `previous` is the key it replaced unless a
     * version keeps that one as its own. With `keepUploaded` an uploaded thumbnail stays and `kept` is true.
     * Undefined when the model does not exist.
     */
    async setThumbnail(
      id: string,
      key: string,
      source: ThumbnailSource,
      options: { keepUploaded?: boolean } = {},
    ): Promise<{ unused: string[]; row: ModelRow; kept: boolean } | undefined> {
      return inTransaction(db, async (trx) => {
        const before = await trx
          .selectFrom('models')
          .select(['thumbnail_key', 'thumbnail_source'])
          .where('id', '=', id)
          .executeTakeFirst();
        if (!before) return undefined;
        let update = trx
          .updateTable('models')
          .set({ thumbnail_key: key, thumbnail_source: source, updated_at: nowIso() })
          .where('id', '=', id);
        // Checked again in the update itself, so an upload that lands while a render runs is never overwritten.
        if (options.keepUploaded)
          update = update.where((eb) =>
            eb.or([eb('thumbnail_source', 'is', null), eb('thumbnail_source', '!=', 'uploaded')]),
          );
        const row = await update.returningAll().executeTakeFirst();
        if (!row) {
          const current = await trx.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst();
          return current ? { unused: [], row: current, kept: true } : undefined;
        }
        const versions = createVersionRepository(trx);
        // A render draws the files of the version the model serves: it is that version's picture too, so a restore
        // of another version and back shows it rather than the one it replaced.
        const replacedOfVersion =
          source === 'rendered' ? await versions.takeThumbnail(id, row.current_version, key) : null;
        // A picture another version keeps stays for it (version-thumbnail.ts); one nothing names goes.
        const unused: string[] = [];
        for (const old of new Set([before.thumbnail_key, replacedOfVersion])) {
          if (old !== null && old !== key && !(await versions.keepsThumbnail(id, old))) unused.push(old);
        }
        return { unused, row, kept: false };
      });
    },

    /**
     * Takes the model for one thumbnail render for `leaseMs` unless another render holds it; false when one does
     * (or the model is gone). The lease lapses by itself, so a worker that dies mid-render blocks nobody for long.
     */
    async claimThumbnailRender(id: string, leaseMs: number): Promise<boolean> {
      const now = new Date();
      const result = await db
        .updateTable('models')
        .set({ thumbnail_render_until: new Date(now.getTime() + leaseMs).toISOString() })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('thumbnail_render_until', 'is', null),
            eb('thumbnail_render_until', '<', now.toISOString()),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Gives the model back after a render took it with {@link claimThumbnailRender}. */
    async releaseThumbnailRender(id: string): Promise<void> {
      await db.updateTable('models').set({ thumbnail_render_until: null }).where('id', '=', id).execute();
    },
  };
}
