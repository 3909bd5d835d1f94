// The writes that can change a lookup's answer (a material's fields, its deletion, binds and unbinds), each in a
// transaction that raises the material generation, and the lock order that keeps them from deadlocking.
import { sql, type Updateable } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { Db, MaterialRow, MaterialsTable } from '../db/database.ts';
import { chunks, idChunkSize, inStringSet, stringSet } from '../db/id-set.ts';
import {
  raiseGenerationAfterCommit,
  raiseGenerationWithin,
  type MaterialChange,
} from '../db/material-generation.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { nowIso } from '../db/timestamps.ts';
import { insertNewBindings, NEW_BINDINGS_MIN_GROUPS } from './insert-new-bindings.ts';

/** The writes of {@link createLookupWrites}. */
export type LookupWrites = ReturnType<typeof createLookupWrites>;

/** Creates the lookup-changing writes over an open database; `onDeadlockRetry` is told of each rerun. */
export function createLookupWrites(
  { db, dialect }: DatabaseHandle,
  onDeadlockRetry: ((error: unknown) => void) | undefined,
) {
  const chunkSize = idChunkSize(dialect);
  // Every binding statement locks in one order, so a deadlock can only come from outside this repository (a
  // model's deletion removing its bindings); the retry is the safety net, and the callback makes it visible.
  const retryWrites = <T>(run: () => Promise<T>) => retryOnDeadlock(run, { onRetry: onDeadlockRetry });
  const postgres = dialect === 'postgres';
  // PostgreSQL's binding column compares in "C" (byte) order, and so must the ids it is sorted against.
  const byteOrder = postgres ? sql` collate "C"` : sql``;

  /**
   * Whether the material exists, locking its row on PostgreSQL until the transaction ends: `key share` while
   * binding (binds and unbinds run side by side, a delete waits), `update` to delete it. The material row is
   * always the first lock a binding transaction takes; SQLite runs one writer at a time and needs none.
   */
  async function lockMaterial(trx: Db, id: number, mode: 'key share' | 'update'): Promise<boolean> {
    let query = trx.selectFrom('materials').select('id').where('id', '=', id);
    if (postgres) query = mode === 'update' ? query.forUpdate() : query.forKeyShare();
    return (await query.executeTakeFirst()) !== undefined;
  }

  /**
   * Deletes the material's bindings of the given groups (all of them when `groupIds` is undefined) and returns the
   * removed group ids. On PostgreSQL the rows are locked first in byte order of group id, the order a bind locks
   * them in, since a plain DELETE visits them in whatever order its scan finds them.
   */
  async function deleteBindings(
    trx: Db,
    id: number,
    groupIds: readonly string[] | undefined,
  ): Promise<string[]> {
    const inGroups = groupIds ? sql`and ${inStringSet('group_id', dialect, groupIds)}` : sql``;
    const { rows } = postgres
      ? await sql<{ group_id: string }>`
          with doomed as (
            select group_id from material_bindings where material_id = ${id} ${inGroups}
            order by group_id for update
          )
          delete from material_bindings as b using doomed where b.group_id = doomed.group_id
          returning b.group_id`.execute(trx)
      : await sql<{ group_id: string }>`
          delete from material_bindings where material_id = ${id} ${inGroups}
          returning group_id`.execute(trx);
    return rows.map((row) => row.group_id);
  }

  /**
   * Runs a write that can change a lookup's answer in a transaction (again on a deadlock), raising the material
   * generation with what `changed` says the result changed, if anything: within the transaction on SQLite, right
   * after the commit on PostgreSQL (see material-generation.ts).
   */
  async function writeLookupData<T>(
    work: (trx: Db) => Promise<T>,
    changed: (result: T) => MaterialChange | undefined,
  ): Promise<T> {
    const result = await retryWrites(() =>
      db.transaction().execute(async (trx) => {
        const done = await work(trx);
        const change = changed(done);
        if (change) await raiseGenerationWithin(trx, dialect, change);
        return done;
      }),
    );
    const change = changed(result);
    if (change) await raiseGenerationAfterCommit(db, dialect, change);
    return result;
  }

  return {
    /** Sets the given columns of a material and bumps `updated_at`; its row, undefined when it does not exist. */
    async update(id: number, columns: Updateable<MaterialsTable>): Promise<MaterialRow | undefined> {
      return writeLookupData(
        (trx) =>
          trx
            .updateTable('materials')
            .set({ ...columns, updated_at: nowIso() })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst(),
        (updated) => (updated ? { materialId: id } : undefined),
      );
    },

    /** Deletes a material and its bindings; the unbound group ids, undefined when it did not exist. */
    async delete(id: number): Promise<string[] | undefined> {
      return writeLookupData(
        async (trx) => {
          // Waits for binds in flight to this material and keeps new ones out until the material is gone.
          if (!(await lockMaterial(trx, id, 'update'))) return undefined;
          const unbound = await deleteBindings(trx, id, undefined);
          // Configurations' bindings to it go with it (their foreign key); a lookup showing one must see that.
          const configured = await trx
            .selectFrom('configuration_bindings')
            .select('group_id')
            .where('material_id', '=', id)
            .execute();
          await trx.deleteFrom('materials').where('id', '=', id).execute();
          return { unbound, changed: [...unbound, ...configured.map((row) => row.group_id)] };
        },
        (deleted) => deleted && { groupIds: deleted.changed },
      ).then((deleted) => deleted?.unbound);
    },

    /** Binds every group to the material, moving groups bound elsewhere; false when the material does not exist. */
    async bind(id: number, groupIds: readonly string[]): Promise<boolean> {
      return writeLookupData(
        async (trx) => {
          if (!(await lockMaterial(trx, id, 'key share'))) return false;
          const now = nowIso();
          for (const chunk of chunks(groupIds, chunkSize)) {
            if (postgres && chunk.length >= NEW_BINDINGS_MIN_GROUPS) {
              if (await insertNewBindings(trx, id, now, chunk)) continue;
            }
            // Rows are inserted, and conflicting rows locked, in byte order of group id: the one order every
            // binding statement locks in, so concurrent binds, unbinds and deletes wait but never deadlock.
            await sql`
              insert into material_bindings (group_id, material_id, created_at)
              select ids.value, ${id}, ${now} from (${stringSet(dialect, chunk)}) as ids
              order by ids.value${byteOrder}
              on conflict (group_id) do update set material_id = excluded.material_id, created_at = excluded.created_at
              where material_bindings.material_id <> excluded.material_id`.execute(trx);
          }
          return true;
        },
        (bound) => (bound ? { groupIds } : undefined),
      );
    },

    /** Removes the given groups' bindings to this material; the ids really removed, undefined when it does not exist. */
    async unbind(id: number, groupIds: readonly string[]): Promise<Set<string> | undefined> {
      return writeLookupData(
        async (trx) => {
          if (!(await lockMaterial(trx, id, 'key share'))) return undefined;
          const removed = new Set<string>();
          for (const chunk of chunks(groupIds, chunkSize)) {
            for (const groupId of await deleteBindings(trx, id, chunk)) removed.add(groupId);
          }
          return removed;
        },
        (removed) => (removed && removed.size > 0 ? { groupIds: [...removed] } : undefined),
      );
    },
  };
}
