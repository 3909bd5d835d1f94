// The writes and checks of a configuration's bindings, and applying them to the material service's bindings.
import type { DatabaseHandle } from '../db/create-db.ts';
import type { Db } from '../db/database.ts';
import { rowsPerStatement } from '../db/bound-parameters.ts';
import { chunks, idChunkSize, inStringSet } from '../db/id-set.ts';
import { raiseGenerationAfterCommit, raiseGenerationWithin } from '../db/material-generation.ts';
import { nowIso } from '../db/timestamps.ts';
import { readConfiguration } from './configuration-rows.ts';
import type { ConfigurationBinding, StoredConfiguration } from './schemas.ts';

/** How a bindings write changes a configuration's bindings. */
export type BindingsMode = 'replace' | 'add';

/** Creates the binding writes over an open database. */
export function createBindingWrites({ db, dialect }: Pick<DatabaseHandle, 'db' | 'dialect'>) {
  const chunkSize = idChunkSize(dialect);
  // Three values a row: as many rows a statement as the engine's limit on bound parameters allows.
  const bindingRows = rowsPerStatement(dialect, 3);

  async function insertBindings(
    trx: Db,
    id: string,
    bindings: readonly ConfigurationBinding[],
  ): Promise<void> {
    for (const chunk of chunks(bindings, bindingRows)) {
      await trx
        .insertInto('configuration_bindings')
        .values(
          chunk.map((b) => ({ configuration_id: id, group_id: b.group_id, material_id: b.material_id })),
        )
        .onConflict((oc) =>
          oc
            .columns(['configuration_id', 'group_id'])
            .doUpdateSet((eb) => ({ material_id: eb.ref('excluded.material_id') })),
        )
        .execute();
    }
  }

  /** Runs a write to a configuration's bindings, raising the material generation so kept lookups see it. */
  async function writeBindings<T>(groupIds: readonly string[], work: (trx: Db) => Promise<T>): Promise<T> {
    const change = { groupIds };
    const result = await db.transaction().execute(async (trx) => {
      const done = await work(trx);
      if (groupIds.length > 0) await raiseGenerationWithin(trx, dialect, change);
      return done;
    });
    if (groupIds.length > 0) await raiseGenerationAfterCommit(db, dialect, change);
    return result;
  }

  /** Marks a configuration of the model changed now; false when the model has no such configuration. */
  async function touchConfiguration(trx: Db, modelId: string, id: string): Promise<boolean> {
    const touched = await trx
      .updateTable('configurations')
      .set({ updated_at: nowIso() })
      .where('id', '=', id)
      .where('model_id', '=', modelId)
      .executeTakeFirst();
    return Number(touched.numUpdatedRows) > 0;
  }

  /** The group ids a configuration binds. */
  async function boundGroups(id: string): Promise<string[]> {
    const rows = await db
      .selectFrom('configuration_bindings')
      .select('group_id')
      .where('configuration_id', '=', id)
      .execute();
    return rows.map((row) => row.group_id);
  }

  return {
    /**
     * Replaces a configuration's bindings or adds to them (a group bound already moves), in one transaction;
     * undefined when the model has no such configuration. The bindings must be checked and distinct by group.
     */
    async writeBindings(
      modelId: string,
      id: string,
      bindings: readonly ConfigurationBinding[],
      mode: BindingsMode,
    ): Promise<StoredConfiguration | undefined> {
      // A replacement changes what the lookup shows for the groups it drops as well as those it writes.
      const before = mode === 'replace' ? await boundGroups(id) : [];
      const changed = [...new Set([...before, ...bindings.map((b) => b.group_id)])];
      return writeBindings(changed, async (trx) => {
        if (!(await touchConfiguration(trx, modelId, id))) return undefined;
        if (mode === 'replace')
          await trx.deleteFrom('configuration_bindings').where('configuration_id', '=', id).execute();
        await insertBindings(trx, id, bindings);
        return readConfiguration(trx, modelId, id);
      });
    },

    /** Removes some of a configuration's bindings; undefined when the model has no such configuration. */
    async removeBindings(
      modelId: string,
      id: string,
      groupIds: readonly string[],
    ): Promise<StoredConfiguration | undefined> {
      return writeBindings(groupIds, async (trx) => {
        if (!(await touchConfiguration(trx, modelId, id))) return undefined;
        for (const chunk of chunks(groupIds, chunkSize)) {
          await trx
            .deleteFrom('configuration_bindings')
            .where('configuration_id', '=', id)
            .where(inStringSet('group_id', dialect, chunk))
            .execute();
        }
        return readConfiguration(trx, modelId, id);
      });
    },

    /** A configuration's bindings, by group. */
    async bindings(id: string): Promise<ConfigurationBinding[]> {
      const rows = await db
        .selectFrom('configuration_bindings')
        .select(['group_id', 'material_id'])
        .where('configuration_id', '=', id)
        .orderBy('group_id')
        .execute();
      return rows.map((row) => ({ group_id: row.group_id, material_id: Number(row.material_id) }));
    },
  };
}
