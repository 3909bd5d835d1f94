/**
 * Client of a model's configurations (`/api/models/:id/configurations`, catalog envelope): named sets of bound
 * materials that change nothing the model shows until one is applied.
 */
import { request } from './http.ts';
import type { Configuration } from '../../../src/configurations/schemas.ts';

export type { Configuration };

/** The configuration a page shows and writes to: its model and its id. */
export interface ConfigurationRef {
  modelId: string;
  id: string;
}

const configurationsPath = (modelId: string): string =>
  `/api/models/${encodeURIComponent(modelId)}/configurations`;
const onePath = ({ modelId, id }: ConfigurationRef): string =>
  `${configurationsPath(modelId)}/${encodeURIComponent(id)}`;

/** Reads the `data` of a catalog envelope. */
async function data<T>(path: string, options: Parameters<typeof request>[1] = {}): Promise<T> {
  return ((await request(path, options)) as { data: T }).data;
}

/** The model's configurations, oldest first. */
export function listConfigurations(modelId: string): Promise<Configuration[]> {
  return data(configurationsPath(modelId));
}

/** Makes a configuration named `name` holding the bindings of `from`: `current` (the model's) or a configuration. */
export function createConfiguration(
  modelId: string,
  name: string,
  from: 'current' | string,
): Promise<Configuration> {
  return data(configurationsPath(modelId), { method: 'POST', body: { name, from } });
}

/** Renames a configuration. */
export function renameConfiguration(ref: ConfigurationRef, name: string): Promise<Configuration> {
  return data(onePath(ref), { method: 'PATCH', body: { name } });
}

/** Deletes a configuration and its bindings; the model keeps its own. */
export async function deleteConfiguration(ref: ConfigurationRef): Promise<void> {
  await request(onePath(ref), { method: 'DELETE' });
}

/** Makes the configuration's bindings the model's. */
export function applyConfiguration(ref: ConfigurationRef): Promise<Configuration> {
  return data(`${onePath(ref)}/apply`, { method: 'POST' });
}

/** Binds `groupIds` to material `materialId` in the configuration (a group it binds already moves). */
export function bindInConfiguration(
  ref: ConfigurationRef,
  materialId: number,
  groupIds: string[],
): Promise<Configuration> {
  const bindings = groupIds.map((group_id) => ({ group_id, material_id: materialId }));
  return data(`${onePath(ref)}/bindings`, { method: 'POST', body: { bindings } });
}

/** Removes the configuration's bindings of `groupIds`: those parts show the model's bindings again. */
export function unbindInConfiguration(ref: ConfigurationRef, groupIds: string[]): Promise<Configuration> {
  return data(`${onePath(ref)}/bindings`, { method: 'DELETE', body: { group_ids: groupIds } });
}
