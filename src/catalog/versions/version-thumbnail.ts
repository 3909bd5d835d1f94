// Which picture a model shows as its versions change. Each version keeps its own rendered picture
// (`model_versions.thumbnail_key`); the version made current lends it to the model, so the model's thumbnail is
// the one of the version it serves. A picture a person uploaded stays, whatever version is current.
import type { Db } from '../../db/database.ts';

/** What making a version current did to the model's picture. */
export interface ThumbnailSwitch {
  /** Whether the model's thumbnail key changed. */
  changed: boolean;
  /** The key the model showed before, when no version keeps it: nothing reads it any more, the caller removes it. */
  unused: string | null;
}

/** Whether a version of the model keeps `key` as its own picture (and so must not lose the file). */
export async function versionKeepsThumbnail(db: Db, modelId: string, key: string): Promise<boolean> {
  const row = await db
    .selectFrom('model_versions')
    .select('number')
    .where('model_id', '=', modelId)
    .where('thumbnail_key', '=', key)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether the model or one of its versions names `key` as its picture. A picture's name is its content's hash, so a
 * picture of the same bytes stored in the same folder (an upload of version 1's picture, a render that draws the
 * same) is the same file, which a deleted version must leave to whoever else names it.
 */
export async function thumbnailInUse(db: Db, modelId: string, key: string): Promise<boolean> {
  if (await versionKeepsThumbnail(db, modelId, key)) return true;
  const model = await db
    .selectFrom('models')
    .select('id')
    .where('id', '=', modelId)
    .where('thumbnail_key', '=', key)
    .executeTakeFirst();
  return model !== undefined;
}

/**
 * Makes `key` version `number`'s own picture (a render of it, as the model serves it); the key it kept before,
 * or null. The caller removes that file when no version keeps it any more.
 */
export async function takeVersionThumbnail(
  trx: Db,
  modelId: string,
  number: number,
  key: string,
): Promise<string | null> {
  const version = await trx
    .selectFrom('model_versions')
    .select('thumbnail_key')
    .where('model_id', '=', modelId)
    .where('number', '=', number)
    .executeTakeFirst();
  if (!version) return null;
  await trx
    .updateTable('model_versions')
    .set({ thumbnail_key: key })
    .where('model_id', '=', modelId)
    .where('number', '=', number)
    .execute();
  return version.thumbnail_key;
}

/**
 * In the transaction that makes version `number` current (before `models.current_version` moves): the model
 * shows that version's own picture, or none when its render failed, unless its thumbnail was uploaded. A version
 * going out of service without a picture of its own (a version 1 whose picture the model's own conversion
 * rendered into the model's folder) first takes the model's, so restoring it later shows it again.
 */
export async function showVersionThumbnail(
  trx: Db,
  modelId: string,
  number: number,
): Promise<ThumbnailSwitch> {
  const model = await trx
    .selectFrom('models')
    .select(['thumbnail_key', 'thumbnail_source', 'current_version'])
    .where('id', '=', modelId)
    .executeTakeFirst();
  const version = await trx
    .selectFrom('model_versions')
    .select('thumbnail_key')
    .where('model_id', '=', modelId)
    .where('number', '=', number)
    .executeTakeFirst();
  const unchanged = { changed: false, unused: null };
  if (!model || !version || model.thumbnail_source === 'uploaded') return unchanged;
  const previous = model.thumbnail_key;
  if (previous === version.thumbnail_key) return unchanged;
  // A picture no version keeps is the model's own: the outgoing version takes it when it has none, else it goes.
  let unused = previous !== null && !(await versionKeepsThumbnail(trx, modelId, previous)) ? previous : null;
  if (unused !== null && model.current_version !== number) {
    const adopted = await trx
      .updateTable('model_versions')
      .set({ thumbnail_key: unused })
      .where('model_id', '=', modelId)
      .where('number', '=', model.current_version)
      .where('thumbnail_key', 'is', null)
      .executeTakeFirst();
    if (Number(adopted.numUpdatedRows) > 0) unused = null;
  }
  await trx
    .updateTable('models')
    .set({
      thumbnail_key: version.thumbnail_key,
      thumbnail_source: version.thumbnail_key === null ? null : 'rendered',
    })
    .where('id', '=', modelId)
    .execute();
  return { changed: true, unused };
}
