// The per-model lock that puts a model's version operations (restore, delete, completion, a new version, a
// reconversion) and its configurations' creation one after the other: each takes it first in its transaction, so none reads the model's current
// version while another is changing it. Without it a restore and a delete of the same version, both reading before
// either wrote, left PostgreSQL's model pointing at the deleted version.
import type { Db } from './database.ts';

/**
 * Takes the lock on model `modelId` for the rest of the transaction `trx`; false when there is no such model. An
 * update of the model's row that changes nothing: PostgreSQL locks the row until the commit, and SQLite takes its
 * one writer lock, so the same statement serializes on either database (a `SELECT … FOR UPDATE` is PostgreSQL's
 * only, and a read takes no writer lock on SQLite).
 */
export async function lockModel(trx: Db, modelId: string): Promise<boolean> {
  const result = await trx
    .updateTable('models')
    .set((eb) => ({ last_version: eb.ref('last_version') }))
    .where('id', '=', modelId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
