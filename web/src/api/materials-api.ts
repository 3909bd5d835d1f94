/** Client of the material service (`/api/v1`, envelope `{code, message, data}`). */
import { request } from './http.ts';
import type { GroupMaterial, Material, MaterialFields, Paged } from './types.ts';

const BASE = '/api/v1';

async function data<T>(path: string, options: Parameters<typeof request>[1] = {}): Promise<T> {
  return ((await request(BASE + path, options)) as { data: T }).data;
}

/** Lists materials by id; `name` is a case-insensitive substring filter. */
export function listMaterials(query: {
  page?: number;
  page_size?: number;
  name?: string;
}): Promise<Paged<Material>> {
  return data('/materials', { query });
}

/** Creates a material; omitted fields take the server's defaults. */
export function createMaterial(fields: Partial<MaterialFields> & { name: string }): Promise<Material> {
  return data('/materials', { method: 'POST', body: fields });
}

/** Changes only the given fields of a material. */
export function updateMaterial(id: number, fields: Partial<MaterialFields>): Promise<Material> {
  return data(`/materials/${id}`, { method: 'PUT', body: fields });
}

/** Deletes a material and its bindings. */
export async function deleteMaterial(id: number): Promise<void> {
  await data(`/materials/${id}`, { method: 'DELETE' });
}

/** Binds a material to groups; a group bound elsewhere moves to this material. */
export async function bindGroups(id: number, groupIds: string[]): Promise<void> {
  await data(`/materials/${id}/bindings`, { method: 'POST', body: { group_ids: groupIds } });
}

/** Removes the bindings of these groups to this material. */
export function unbindGroups(
  id: number,
  groupIds: string[],
): Promise<{ material_id: number; unbound: string[] }> {
  return data(`/materials/${id}/bindings`, { method: 'DELETE', body: { group_ids: groupIds } });
}

/** Group ids per lookup: the service takes at most 100,000 in one call. */
const GROUPS_PER_LOOKUP = 50_000;

/**
 * The materials bound to a set of groups, in one call per 50,000 groups (one for most models); unbound groups are
 * left out. With `configurationId`, as that configuration shows them: its bindings over the model's.
 */
export async function materialsForGroups(
  groupIds: string[],
  configurationId?: string,
): Promise<GroupMaterial[]> {
  const found: GroupMaterial[] = [];
  for (let start = 0; start < groupIds.length; start += GROUPS_PER_LOOKUP) {
    const group_ids = groupIds.slice(start, start + GROUPS_PER_LOOKUP);
    const body = configurationId ? { group_ids, configuration_id: configurationId } : { group_ids };
    found.push(...(await data<GroupMaterial[]>('/groups/materials', { method: 'POST', body })));
  }
  return found;
}
