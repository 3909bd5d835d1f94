// The checks of a configuration's bindings before a write: every group a part of the model, every material real.
import type { DatabaseHandle } from '../db/create-db.ts';
import { rowsPerStatement } from '../db/bound-parameters.ts';
import { chunks, idChunkSize, inStringSet } from '../db/id-set.ts';

/** The given group ids that are not parts of the model, in their order. */
export async function groupsNotOf(
  { db, dialect }: Pick<DatabaseHandle, 'db' | 'dialect'>,
  modelId: string,
  groupIds: readonly string[],
): Promise<string[]> {
  const chunkSize = idChunkSize(dialect);
  const known = new Set<string>();
  for (const chunk of chunks(groupIds, chunkSize)) {
    const rows = await db
      .selectFrom('model_parts')
      .select('group_id')
      .where('model_id', '=', modelId)
      .where(inStringSet('group_id', dialect, chunk))
      .execute();
    for (const row of rows) known.add(row.group_id);
  }
  return groupIds.filter((groupId) => !known.has(groupId));
}

/** The given material ids that name no material, ascending. */
export async function unknownMaterials(
  { db, dialect }: Pick<DatabaseHandle, 'db' | 'dialect'>,
  materialIds: readonly number[],
): Promise<number[]> {
  const distinct = [...new Set(materialIds)];
  const known = new Set<number>();
  for (const chunk of chunks(distinct, rowsPerStatement(dialect, 1))) {
    const rows = await db.selectFrom('materials').select('id').where('id', 'in', chunk).execute();
    for (const row of rows) known.add(Number(row.id));
  }
  return distinct.filter((id) => !known.has(id)).sort((a, b) => a - b);
}
