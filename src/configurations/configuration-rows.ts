import type { Db } from '../db/database.ts';
import { toStoredConfiguration, type StoredConfiguration } from './schemas.ts';

/** Configurations with their binding count, to be narrowed by a where. */
export const withCount = (trx: Db) =>
  trx
    .selectFrom('configurations as c')
    .selectAll('c')
    .select((eb) =>
      eb
        .selectFrom('configuration_bindings as b')
        .whereRef('b.configuration_id', '=', 'c.id')
        .select(eb.fn.countAll<number>().as('n'))
        .as('binding_count'),
    );

/** One configuration of a model with its binding count, or undefined. */
export async function readConfiguration(
  trx: Db,
  modelId: string,
  id: string,
): Promise<StoredConfiguration | undefined> {
  const row = await withCount(trx)
    .where('c.id', '=', id)
    .where('c.model_id', '=', modelId)
    .executeTakeFirst();
  return row && toStoredConfiguration({ ...row, binding_count: row.binding_count ?? 0 });
}
