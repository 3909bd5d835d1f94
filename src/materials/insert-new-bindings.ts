import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { stringSet } from '../db/id-set.ts';

/** PostgreSQL's code for a unique violation. */
const UNIQUE_VIOLATION = '23505';

/**
 * Fewest groups for which {@link insertNewBindings} is tried: below it the upsert's extra cost per row is smaller
 * than the savepoint's round trips, and a small bind (a viewer painting a part) usually moves a bound group.
 */
export const NEW_BINDINGS_MIN_GROUPS = 1_000;

/**
 * PostgreSQL: binds groups none of which is bound yet (a new model's parts, the usual bulk bind) with a plain
 * insert, in byte order of group id like every binding statement. That is about twice as fast as the upsert,
 * whose speculative insertion costs an index probe and a log record more per row. Returns true when it inserted
 * them; false, with the transaction rolled back to where it was, when one of the groups was bound already (here,
 * or by a bind committed while this one waited on it): the caller then runs the upsert. The group ids must be
 * distinct.
 */
export async function insertNewBindings(
  trx: Db,
  materialId: number,
  createdAt: string,
  groupIds: readonly string[],
): Promise<boolean> {
  await sql`savepoint vitrine_new_bindings`.execute(trx);
  try {
    await sql`
      insert into material_bindings (group_id, material_id, created_at)
      select ids.value, ${materialId}, ${createdAt} from (${stringSet('postgres', groupIds)}) as ids
      order by ids.value collate "C"`.execute(trx);
  } catch (error) {
    if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
    await sql`rollback to savepoint vitrine_new_bindings`.execute(trx);
    return false;
  }
  await sql`release savepoint vitrine_new_bindings`.execute(trx);
  return true;
}
