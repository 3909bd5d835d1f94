import { sql } from 'kysely';
import type { DialectName } from './create-db.ts';
import type { Db, MaterialChangesTable } from './database.ts';

/** What a write changed that a bulk lookup can show: some groups' bindings, or one material's own fields. */
export type MaterialChange = { groupIds: readonly string[] } | { materialId: number };

/**
 * Most group ids one change row lists; a larger write (a model's parts bound at once) is logged as unlisted, and
 * kept replies are read anew. Painting, the change a viewer makes while a model is open, binds a few groups.
 */
export const MAX_LISTED_GROUPS = 1_000;

/**
 * Change rows kept behind the newest; a reply kept at an older generation is read again in full. With the bound
 * above, the log holds at most 200,000 group ids (a few MB of ids of usual length).
 */
export const KEPT_CHANGES = 200;

/** Everything that changed between two generations, as far as the log still tells. */
export interface ChangesSince {
  /** The generation now. */
  generation: number;
  /** Groups whose bindings may have changed. */
  groupIds: Set<string>;
  /** Materials whose own fields changed. */
  materialIds: Set<number>;
}

function changeRow(generation: number, change: MaterialChange): MaterialChangesTable {
  if ('materialId' in change) return { generation, material_id: change.materialId, group_ids: null };
  const listed = change.groupIds.length <= MAX_LISTED_GROUPS;
  return { generation, material_id: null, group_ids: listed ? JSON.stringify(change.groupIds) : null };
}

/**
 * Raises the material generation inside a writing transaction on SQLite, where writers take turns anyway (see the
 * 2026-11-25 migration), and logs what changed under the new value. Does nothing on PostgreSQL: there
 * {@link raiseGenerationAfterCommit} does both.
 */
export async function raiseGenerationWithin(
  trx: Db,
  dialect: DialectName,
  change: MaterialChange,
): Promise<void> {
  if (dialect === 'postgres') return;
  const { value } = await trx
    .updateTable('material_generation')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('id', '=', 1)
    .returning('value')
    .executeTakeFirstOrThrow();
  await trx.insertInto('material_changes').values(changeRow(value, change)).execute();
  await trx
    .deleteFrom('material_changes')
    .where('generation', '<=', value - KEPT_CHANGES)
    .execute();
}

/**
 * Raises the material generation on PostgreSQL once a writing transaction has committed, before its request is
 * answered, by logging what changed under the sequence's next value (one statement, which also drops the oldest
 * rows). A lookup reads the generation before it takes its snapshot, so a reply kept under the old value may
 * hold the change already (harmless) but a reply kept under the new one always does. Does nothing on SQLite.
 */
export async function raiseGenerationAfterCommit(
  db: Db,
  dialect: DialectName,
  change: MaterialChange,
): Promise<void> {
  if (dialect !== 'postgres') return;
  const { material_id, group_ids } = changeRow(0, change);
  await sql`
    with raised as (
      insert into material_changes (generation, material_id, group_ids)
      values (nextval('material_generation'), ${material_id}, ${group_ids})
      returning generation
    )
    delete from material_changes where generation <= (select generation from raised) - ${KEPT_CHANGES}`.execute(
    db,
  );
}

/** The current material generation. */
export async function readMaterialGeneration(db: Db, dialect: DialectName): Promise<number> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{
      value: string;
    }>`select last_value as value from material_generation`.execute(db);
    return Number(rows[0]!.value);
  }
  const row = await db
    .selectFrom('material_generation')
    .select('value')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/**
 * Sums up the change rows after `since` up to `generation`; undefined when they do not account for every raise
 * in between (rows already dropped, a raise not yet logged, a write too large to list).
 */
export function sumChanges(
  since: number,
  generation: number,
  rows: readonly Omit<MaterialChangesTable, 'generation'>[],
): ChangesSince | undefined {
  if (rows.length !== generation - since) return undefined;
  const changes: ChangesSince = { generation, groupIds: new Set(), materialIds: new Set() };
  for (const row of rows) {
    if (row.group_ids !== null) {
      for (const groupId of JSON.parse(row.group_ids) as string[]) changes.groupIds.add(groupId);
    } else if (row.material_id !== null) changes.materialIds.add(Number(row.material_id));
    else return undefined;
  }
  return changes;
}

/** What changed after generation `since`, read with the current generation in one statement. */
export async function readChangesSince(
  db: Db,
  dialect: DialectName,
  since: number,
): Promise<ChangesSince | undefined> {
  if (dialect === 'postgres') {
    // The sequence is read in the same statement as the rows: a raise whose row is not yet visible is a gap, and
    // a gap sends the caller back to a full read.
    const { rows } = await sql<{
      current: string;
      material_id: number | null;
      group_ids: string | null;
      generation: string | null;
    }>`
      select s.last_value as current, c.generation, c.material_id, c.group_ids
      from material_generation as s
      left join material_changes as c on c.generation > ${since} and c.generation <= s.last_value`.execute(
      db,
    );
    const generation = Number(rows[0]!.current);
    return sumChanges(
      since,
      generation,
      rows.filter((row) => row.generation !== null),
    );
  }
  return db.transaction().execute(async (trx) => {
    const generation = await readMaterialGeneration(trx, dialect);
    const rows = await trx
      .selectFrom('material_changes')
      .select(['material_id', 'group_ids'])
      .where('generation', '>', since)
      .where('generation', '<=', generation)
      .execute();
    return sumChanges(since, generation, rows);
  });
}
