// The data access of model versions: their rows and parts, and the one transaction that makes a version the
// model's current one (its outputs onto `models`, its parts into `model_parts` and `model_part_properties`).
import type { Db, ModelRow, ModelVersionRow, NewModelVersionRow } from '../../db/database.ts';
import { inTransaction } from '../../db/in-transaction.ts';
import type { PreviousPart } from '../../pipeline/types.ts';
import { nowIso } from '../../db/timestamps.ts';
import { currentVersionAccess } from './current-version.ts';
import { versionPartReadAccess } from './version-part-reads.ts';
import { versionMadeBy, versionReconvertAccess } from './version-reconvert.ts';
import { strandedVersionAccess } from './version-sweep.ts';
import { takeVersionThumbnail, versionKeepsThumbnail } from './version-thumbnail.ts';
import { FILE_COLUMNS, partsOf, pick } from './version-rows.ts';

/** A version's part as the diff and the next conversion read it (the pipeline's record of a previous part). */
export type VersionPart = PreviousPart;

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
  | 'original_filename'
  | 'format'
  | 'file_size'
  | 'source_key'
  | 'source_entry'
  | 'unit'
  | 'up_axis'
  | 'upload_id'
>;

/** The version repository's type. */
export type VersionRepository = ReturnType<typeof createVersionRepository>;

/** Creates the repository over an open database or a transaction. */
export function createVersionRepository(db: Db) {
  return {
    // Making a version current, and keeping the current one's row in step with its model (current-version.ts).
    ...currentVersionAccess(db),
    // A version's part rows as the part routes serve them (version-part-reads.ts).
    ...versionPartReadAccess(db),
    // The versions left converting without a job, and their failure (version-sweep.ts).
    ...strandedVersionAccess(db),
    // A failed version queued for conversion again (version-reconvert.ts).
    ...versionReconvertAccess(db),
    /** The version made from the finished resumable upload `uploadId`, of any model, or undefined. */
    madeBy: (uploadId: string) => versionMadeBy(db, uploadId),
    /** Whether a version of the model keeps `key` as its own picture (version-thumbnail.ts). */
    keepsThumbnail: (modelId: string, key: string) => versionKeepsThumbnail(db, modelId, key),
    /** Makes `key` the version's own picture; the key it kept before, or null (version-thumbnail.ts). */
    takeThumbnail: (modelId: string, number: number, key: string) =>
      takeVersionThumbnail(db, modelId, number, key),
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
     * A new version numbered after the highest one the model ever had (a deleted version's number is not given
     * again), based on the model's current version, in the model's unit and up axis unless `file` states others;
     * undefined when the model does not exist. `key` makes the source key from the number the version gets.
     */
    async create(
      modelId: string,
      file: Omit<VersionFile, 'source_key'>,
      key: (number: number) => string,
      author: string | null,
    ): Promise<ModelVersionRow | undefined> {
      return inTransaction(db, async (trx) => {
        // Claimed first, so versions posted at once are numbered one after the other on either database.
        const claimed = await trx
          .updateTable('models')
          .set((eb) => ({ last_version: eb('last_version', '+', 1) }))
          .where('id', '=', modelId)
          .executeTakeFirst();
        if (Number(claimed.numUpdatedRows) === 0) return undefined;
        const model = await trx
          .selectFrom('models')
          .select(['current_version', 'last_version', 'unit', 'up_axis'])
          .where('id', '=', modelId)
          .executeTakeFirstOrThrow();
        const top = await trx
          .selectFrom('model_versions')
          .select((eb) => eb.fn.max('number').as('top'))
          .where('model_id', '=', modelId)
          .executeTakeFirst();
        // Never a number given before, even one whose version was deleted since (a link may still pin it).
        const number = Math.max(Number(top?.top ?? 0) + 1, model.last_version);
        if (number !== model.last_version)
          await trx.updateTable('models').set({ last_version: number }).where('id', '=', modelId).execute();
        const now = nowIso();
        return trx
          .insertInto('model_versions')
          .values({
            model_id: modelId,
            number,
            ...file,
            // A file that states no frame is read in the model's: the unit and up axis it was given (at its upload or
            // by a PATCH) hold for every version until a version's request states others.
            unit: file.unit ?? model.unit,
            up_axis: file.up_axis ?? model.up_axis,
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

    /** A version's parts in scene order, with their fingerprints. */
    async parts(modelId: string, number: number): Promise<VersionPart[]> {
      return partsOf(db, modelId, number);
    },
  };
}
