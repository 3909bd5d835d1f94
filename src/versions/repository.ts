// The data access of model versions: their rows and parts, and the one transaction that makes a version the
// model's current one (its outputs onto `models`, its parts into `model_parts` and `model_part_properties`).
import { sql } from 'kysely';
import type { Db, ModelRow, ModelVersionRow, NewModelVersionRow } from '../db/database.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { nowIso } from '../db/timestamps.ts';
import type { ConversionRecord } from '../catalog/repository.ts';
import {
  FILE_COLUMNS,
  insertRows,
  makeCurrentIn,
  OUTPUT_COLUMNS,
  outputsOf,
  partRows,
  partsOf,
  pick,
  toVersionPart,
  versionExists,
} from './version-rows.ts';
import { compareVersionParts } from './part-diff.ts';

/** A version's part as the diff and the next conversion read it. */
export interface VersionPart {
  group_id: string;
  name: string;
  path: string;
  fingerprint: { geometry: string; transform: string; properties: string; material: string } | null;
}

/** Counts of a diff between a version and the one it was based on. */
export interface DiffCounts {
  added: number;
  removed: number;
  changed: number;
  unchanged: number;
}

/** The fields of a new version that describe its file. */
export type VersionFile = Pick<
  NewModelVersionRow,
  'original_filename' | 'format' | 'file_size' | 'source_key' | 'source_entry' | 'unit' | 'up_axis'
>;

/** The version repository's type. */
export type VersionRepository = ReturnType<typeof createVersionRepository>;

/** Creates the repository over an open database or a transaction. */
export function createVersionRepository(db: Db) {
  return {
    /** Version 1 of a model just made by an upload, in the upload's transaction. */
    async createFirst(model: ModelRow): Promise<void> {
      const now = nowIso();
      await db
        .insertInto('model_versions')
        .values({
          model_id: model.id,
          number: 1,
          ...pick(model, FILE_COLUMNS),
          status: model.status,
          progress: model.progress,
          lods: '[]',
          based_on: null,
          author: null,
          created_at: now,
          updated_at: now,
        })
        .execute();
    },

    /**
     * A new version numbered after the highest one, based on the model's current version; undefined when the
     * model does not exist. `key` makes the source key from the number the version gets.
     */
    async create(
      modelId: string,
      file: Omit<VersionFile, 'source_key'>,
      key: (number: number) => string,
      author: string | null,
    ): Promise<ModelVersionRow | undefined> {
      return inTransaction(db, async (trx) => {
        const model = await trx
          .selectFrom('models')
          .select('current_version')
          .where('id', '=', modelId)
          .executeTakeFirst();
        if (!model) return undefined;
        const top = await trx
          .selectFrom('model_versions')
          .select((eb) => eb.fn.max('number').as('top'))
          .where('model_id', '=', modelId)
          .executeTakeFirst();
        const number = Number(top?.top ?? 0) + 1;
        const now = nowIso();
        return trx
          .insertInto('model_versions')
          .values({
            model_id: modelId,
            number,
            ...file,
            source_key: key(number),
            status: 'pending',
            progress: 0,
            lods: '[]',
            based_on: model.current_version,
            author,
            created_at: now,
            updated_at: now,
          })
          .returningAll()
          .executeTakeFirstOrThrow();
      });
    },

    /** Every version of a model, newest first. */
    async list(modelId: string): Promise<ModelVersionRow[]> {
      return db
        .selectFrom('model_versions')
        .selectAll()
        .where('model_id', '=', modelId)
        .orderBy('number', 'desc')
        .execute();
    },

    /** One version, or undefined. */
    async get(modelId: string, number: number): Promise<ModelVersionRow | undefined> {
      return db
        .selectFrom('model_versions')
        .selectAll()
        .where('model_id', '=', modelId)
        .where('number', '=', number)
        .executeTakeFirst();
    },

    /** Moves a version to a state; false when it is gone. */
    async setStatus(
      modelId: string,
      number: number,
      status: string,
      progress: number,
      error: string | null = null,
    ): Promise<boolean> {
      const result = await db
        .updateTable('model_versions')
        .set({ status, progress, error, updated_at: nowIso() })
        .where('model_id', '=', modelId)
        .where('number', '=', number)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Records conversion progress of a processing version, never backwards. */
    async setProgress(modelId: string, number: number, progress: number): Promise<void> {
      await db
        .updateTable('model_versions')
        .set({ progress, updated_at: nowIso() })
        .where('model_id', '=', modelId)
        .where('number', '=', number)
        .where('status', '=', 'processing')
        .where('progress', '<', progress)
        .execute();
    },

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
    ): Promise<{ diff_counts: DiffCounts | null } | undefined> {
      return inTransaction(db, async (trx) => {
        const version = await trx
          .selectFrom('model_versions')
          .select('based_on')
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .executeTakeFirst();
        if (!version) return undefined;
        const rows = partRows(modelId, number, record.parts);
        // A basis deleted meanwhile leaves nothing to count against.
        const basedOn = version.based_on;
        const counts =
          basedOn !== null && (await versionExists(trx, modelId, basedOn))
            ? compareVersionParts(await partsOf(trx, modelId, basedOn), rows.map(toVersionPart)).counts
            : null;
        await trx
          .updateTable('model_versions')
          .set({
            status: 'completed',
            progress: 100,
            error: null,
            ...outputsOf(record),
            thumbnail_key: thumbnailKey,
            diff_counts: counts ? JSON.stringify(counts) : null,
            updated_at: nowIso(),
          })
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .execute();
        await trx
          .deleteFrom('model_version_parts')
          .where('model_id', '=', modelId)
          .where('version', '=', number)
          .execute();
        await insertRows(trx, rows);
        if (!(await makeCurrentIn(trx, modelId, number))) return undefined;
        return { diff_counts: counts };
      });
    },

    /** A version's parts in scene order, with their fingerprints. */
    async parts(modelId: string, number: number): Promise<VersionPart[]> {
      return partsOf(db, modelId, number);
    },

    /** Makes a completed version the model's current one; false when it is gone or not completed. */
    async makeCurrent(modelId: string, number: number): Promise<boolean> {
      return inTransaction(db, (trx) => makeCurrentIn(trx, modelId, number));
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
      await db
        .deleteFrom('model_version_parts')
        .where('model_id', '=', modelId)
        .where('version', '=', number)
        .execute();
      await insertRows(db, partRows(modelId, number, parts));
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
     * Deletes a version with its parts unless it is the current one. `deleted` with its row, `current` when it is
     * the model's current version, or undefined when there is no such version.
     */
    async delete(
      modelId: string,
      number: number,
    ): Promise<{ deleted: ModelVersionRow } | { current: true } | undefined> {
      return inTransaction(db, async (trx) => {
        const row = await trx
          .selectFrom('model_versions')
          .selectAll()
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .executeTakeFirst();
        if (!row) return undefined;
        // Deleted only while it is not current, checked in the statement itself against a restore racing it.
        const result = await trx
          .deleteFrom('model_versions')
          .where('model_id', '=', modelId)
          .where('number', '=', number)
          .where(
            sql<boolean>`not exists (select 1 from models where id = ${modelId} and current_version = ${number})`,
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows) > 0 ? { deleted: row } : { current: true as const };
      });
    },
  };
}
