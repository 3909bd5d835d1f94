// A lookup's rows read in one snapshot with the material generation they were read at: from SQLite's reader
// connection when there is one, else in a transaction (repeatable read on PostgreSQL).
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { Db, MaterialRow } from '../db/database.ts';
import { rowsPerStatement } from '../db/bound-parameters.ts';
import { chunks, idChunkSize, inStringSet, stringSet } from '../db/id-set.ts';
import { readMaterialGeneration } from '../db/material-generation.ts';
import type { createSqliteReads, LookupSnapshot } from './sqlite-reads.ts';

/**
 * Reads the bindings of `groupIds` and their materials in one snapshot; with a configuration, its bindings over
 * the present ones, in the same snapshot (undefined when there is no such configuration).
 */
export async function readLookupSnapshot(
  { db, dialect }: DatabaseHandle,
  fastReads: ReturnType<typeof createSqliteReads> | undefined,
  groupIds: readonly string[],
  configurationId?: string,
): Promise<LookupSnapshot | undefined> {
  const chunkSize = idChunkSize(dialect);
  if (fastReads) return fastReads.lookup(groupIds, chunkSize, configurationId);
  const read = (trx: Db, generation: number) =>
    readLookup(trx, dialect, chunkSize, groupIds, generation, configurationId);
  if (dialect === 'postgres') {
    // Read before the snapshot is taken: a raise comes after its commit (see material-generation.ts).
    const generation = await readMaterialGeneration(db, dialect);
    return db
      .transaction()
      .setIsolationLevel('repeatable read')
      .execute((trx) => read(trx, generation));
  }
  return db.transaction().execute(async (trx) => {
    return read(trx, await readMaterialGeneration(trx, dialect));
  });
}

/**
 * A lookup's rows. Two narrow reads instead of one wide join: 100,000 bindings usually share a few materials,
 * and building 100,000 seventeen-column rows was most of the time of a large lookup.
 */
async function readLookup(
  trx: Db,
  dialect: DatabaseHandle['dialect'],
  chunkSize: number,
  groupIds: readonly string[],
  generation: number,
  configurationId: string | undefined,
): Promise<LookupSnapshot | undefined> {
  if (configurationId !== undefined) {
    const found = await trx
      .selectFrom('configurations')
      .select('id')
      .where('id', '=', configurationId)
      .executeTakeFirst();
    if (!found) return undefined;
  }
  const materialOf = new Map<string, number>();
  for (const chunk of chunks(groupIds, chunkSize)) {
    // Measured fastest on each: `= any($1)` on PostgreSQL (see inStringSet); on SQLite a join driven by the
    // requested ids, which probes the unique index once per id.
    const { rows } =
      configurationId !== undefined
        ? await configuredBindings(trx, dialect, chunk, configurationId)
        : dialect === 'postgres'
          ? await sql<{ group_id: string; material_id: number }>`
            select group_id, material_id from material_bindings
            where ${inStringSet('group_id', dialect, chunk)}`.execute(trx)
          : await sql<{ group_id: string; material_id: number }>`
            select b.group_id, b.material_id from (${stringSet(dialect, chunk)}) as ids
            join material_bindings as b on b.group_id = ids.value`.execute(trx);
    for (const row of rows) materialOf.set(row.group_id, Number(row.material_id));
  }
  const materials: MaterialRow[] = [];
  // One bound value per material id: as many a statement as the engine allows (the bindings share a few, usually).
  for (const chunk of chunks([...new Set(materialOf.values())], rowsPerStatement(dialect, 1))) {
    materials.push(...(await trx.selectFrom('materials').selectAll().where('id', 'in', chunk).execute()));
  }
  return { generation, materialOf, materials };
}

/**
 * The material each of `groupIds` shows under a configuration: the configuration's binding where it has one, else
 * the present binding; one row a group, as a plain lookup reads, so the reply costs what a plain one does.
 */
function configuredBindings(
  trx: Db,
  dialect: DatabaseHandle['dialect'],
  groupIds: string[],
  configurationId: string,
) {
  return dialect === 'postgres'
    ? sql<{ group_id: string; material_id: number }>`
        select group_id, material_id from configuration_bindings
        where configuration_id = ${configurationId} and ${inStringSet('group_id', dialect, groupIds)}
        union all
        select b.group_id, b.material_id from material_bindings as b
        where ${inStringSet('b.group_id', dialect, groupIds)}
        and not exists (
          select 1 from configuration_bindings as c
          where c.configuration_id = ${configurationId} and c.group_id = b.group_id
        )`.execute(trx)
    : sql<{ group_id: string; material_id: number }>`
        select ids.value as group_id, coalesce(c.material_id, b.material_id) as material_id
        from (${stringSet(dialect, groupIds)}) as ids
        left join configuration_bindings as c on c.configuration_id = ${configurationId} and c.group_id = ids.value
        left join material_bindings as b on b.group_id = ids.value
        where c.material_id is not null or b.material_id is not null`.execute(trx);
}
