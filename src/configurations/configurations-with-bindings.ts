// A model's configurations with their bindings, in one read, as an export bakes them.
import type { Db } from '../db/database.ts';

/** A configuration with the material id it binds to each group. */
export interface ConfigurationWithBindings {
  id: string;
  name: string;
  /** The material id of each group the configuration binds. */
  bindings: Map<string, number>;
}

/**
 * The model's configurations, oldest first, or only the one named by `onlyId` (none when the model has no such
 * configuration), each with its bindings: one indexed read of the configurations joined to their bindings.
 */
export async function configurationsWithBindings(
  db: Db,
  modelId: string,
  onlyId?: string,
): Promise<ConfigurationWithBindings[]> {
  let query = db
    .selectFrom('configurations as c')
    .leftJoin('configuration_bindings as b', 'b.configuration_id', 'c.id')
    .select(['c.id', 'c.name', 'b.group_id', 'b.material_id'])
    .where('c.model_id', '=', modelId);
  if (onlyId !== undefined) query = query.where('c.id', '=', onlyId);
  const rows = await query.orderBy('c.created_at').orderBy('c.id').execute();
  const configurations = new Map<string, ConfigurationWithBindings>();
  for (const row of rows) {
    let configuration = configurations.get(row.id);
    if (!configuration) {
      configuration = { id: row.id, name: row.name, bindings: new Map() };
      configurations.set(row.id, configuration);
    }
    if (row.group_id !== null && row.material_id !== null)
      configuration.bindings.set(row.group_id, Number(row.material_id));
  }
  return [...configurations.values()];
}
