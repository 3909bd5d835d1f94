// The parts of one version as the catalog's part routes serve them (a share link pinned to an older version lists
// that version's parts, not the current one's). `model_part_properties` indexes only the current version's
// properties, so a filter over another version is applied here to the properties each part row carries.
import type { Db, ModelVersionPartRow } from '../../db/database.ts';
import { searchFold } from '../../db/search-fold.ts';
import type { PartFilter } from '../schemas.ts';
import { flattenProperties, type PartProperties } from '../../pipeline/part-properties.ts';

/** The part reads of one version, over an open database or a transaction. */
export function versionPartReadAccess(db: Db) {
  const rowsOf = (modelId: string, number: number) =>
    db
      .selectFrom('model_version_parts')
      .selectAll()
      .where('model_id', '=', modelId)
      .where('version', '=', number)
      .orderBy('part_index');
  return {
    /** A version's part rows in scene order, narrowed by `filter` like `GET /api/models/:id/parts` when given. */
    async partRows(modelId: string, number: number, filter?: PartFilter): Promise<ModelVersionPartRow[]> {
      const rows = await rowsOf(modelId, number).execute();
      return filter ? rows.filter((row) => meetsFilter(row, filter)) : rows;
    },

    /** One part of a version by its group id, or undefined. */
    async partRow(
      modelId: string,
      number: number,
      groupId: string,
    ): Promise<ModelVersionPartRow | undefined> {
      return rowsOf(modelId, number).where('group_id', '=', groupId).executeTakeFirst();
    },
  };
}

/**
 * Whether a part meets a filter, with the catalog's SQL rules: every `where` condition matches one of its
 * properties by set, name, type and value; `q` (folded) occurs in its folded name or one of its folded values.
 */
export function meetsFilter(
  row: Pick<ModelVersionPartRow, 'name' | 'properties'>,
  filter: PartFilter,
): boolean {
  const properties = flattenProperties(JSON.parse(row.properties) as PartProperties);
  const all = filter.where.every((condition) =>
    properties.some(
      (property) =>
        property.set_name === condition.set_name &&
        property.property_name === condition.property_name &&
        property.value_type === condition.value_type &&
        property.value === condition.value,
    ),
  );
  if (!all || !filter.q) return all;
  const q = filter.q;
  return (
    searchFold(row.name).includes(q) || properties.some((property) => searchFold(property.value).includes(q))
  );
}
