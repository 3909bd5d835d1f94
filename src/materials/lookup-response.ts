import { MATERIAL_NUMBER_FIELDS, type DefaultMaterial, type Material } from './schemas.ts';

/**
 * The JSON text of a bulk lookup answer (`{"code":0,"message":"success","data":[{group_id, material}…]}`), in the
 * order of `groupIds`. 100,000 entries usually share a handful of materials, so each distinct material is
 * serialized once and its text repeated, instead of stringifying 100,000 copies of the same object.
 */
export function lookupResponseJson(
  groupIds: readonly string[],
  bound: ReadonlyMap<string, Material>,
  fallback: Readonly<DefaultMaterial> | undefined,
): string {
  const texts = new Map<Material | Readonly<DefaultMaterial>, string>();
  const parts: string[] = [];
  for (const groupId of groupIds) {
    const material = bound.get(groupId) ?? fallback;
    if (!material) continue;
    let text = texts.get(material);
    if (text === undefined) texts.set(material, (text = materialJson(material)));
    parts.push(`{"group_id":${JSON.stringify(groupId)},"material":${text}}`);
  }
  return `{"code":0,"message":"success","data":[${parts.join(',')}]}`;
}

// The fields in the order of MaterialSchema, and only those, as the schema-driven serializer writes them.
function materialJson(material: Material | Readonly<DefaultMaterial>): string {
  const ordered: Record<string, unknown> = { id: material.id, name: material.name };
  for (const field of MATERIAL_NUMBER_FIELDS) ordered[field] = material[field];
  if ('created_at' in material) {
    ordered.created_at = material.created_at;
    ordered.updated_at = material.updated_at;
  }
  return JSON.stringify(ordered);
}
