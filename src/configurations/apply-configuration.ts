// Applying a configuration: its bindings become the material service's, in one transaction.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import { raiseGenerationAfterCommit, raiseGenerationWithin } from '../db/material-generation.ts';
import { nowIso } from '../db/timestamps.ts';

/**
 * Makes a configuration's bindings the model's bindings in the material service, in one transaction; parts it
 * does not bind keep theirs. Returns the applied bindings grouped by material, undefined when the model has
 * no such configuration. Locks as the material service's binds do: materials first (key share, ascending),
 * then binding rows in byte order of group id, so it waits on a material's deletion but never deadlocks.
 */
export async function applyConfiguration(
  { db, dialect }: Pick<DatabaseHandle, 'db' | 'dialect'>,
  modelId: string,
  id: string,
): Promise<Map<number, string[]> | undefined> {
  const postgres = dialect === 'postgres';
  let groupIds: string[] = [];
  const result = await db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('configurations')
      .select('id')
      .where('id', '=', id)
      .where('model_id', '=', modelId)
      .executeTakeFirst();
    if (!found) return undefined;
    if (postgres) {
      await sql`select id from materials where id in (
        select material_id from configuration_bindings where configuration_id = ${id})
        order by id for key share`.execute(trx);
    }
    const rows = await trx
      .selectFrom('configuration_bindings')
      .select(['group_id', 'material_id'])
      .where('configuration_id', '=', id)
      .execute();
    const byMaterial = new Map<number, string[]>();
    for (const row of rows) {
      const materialId = Number(row.material_id);
      const list = byMaterial.get(materialId) ?? [];
      list.push(row.group_id);
      byMaterial.set(materialId, list);
    }
    groupIds = rows.map((row) => row.group_id);
    if (rows.length === 0) return byMaterial;
    const byteOrder = postgres ? sql` collate "C"` : sql``;
    await sql`
      insert into material_bindings (group_id, material_id, created_at)
      select group_id, material_id, ${nowIso()} from configuration_bindings
      where configuration_id = ${id}
      order by group_id${byteOrder}
      on conflict (group_id) do update set material_id = excluded.material_id, created_at = excluded.created_at
      where material_bindings.material_id <> excluded.material_id`.execute(trx);
    await raiseGenerationWithin(trx, dialect, { groupIds });
    return byMaterial;
  });
  if (result && groupIds.length > 0) await raiseGenerationAfterCommit(db, dialect, { groupIds });
  return result;
}
