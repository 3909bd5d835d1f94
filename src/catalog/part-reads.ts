/** Reads of a model's parts: in scene order, one by group id, or those meeting a property filter. */
import { sql } from 'kysely';
import type { Db, ModelPartRow } from '../db/database.ts';
import { foldedContains } from '../db/search-fold.ts';
import type { PartFilter } from './part-filters.ts';

/** The part reads of the model repository, over an open database or a transaction. */
export function partReadAccess(db: Db) {
  return {
    /**
     * The parts of a model that meet a filter, in scene order: each `where` condition is an indexed lookup in
     * `model_part_properties`; `q` looks for the text, in any case, in the part's name or any property value.
     */
    async filteredParts(id: string, filter: PartFilter): Promise<ModelPartRow[]> {
      let query = db.selectFrom('model_parts').selectAll().where('model_id', '=', id);
      for (const condition of filter.where) {
        query = query.where('part_index', 'in', (eb) =>
          eb
            .selectFrom('model_part_properties')
            .select('part_index')
            .where('model_id', '=', id)
            .where('set_name', '=', condition.set_name)
            .where('property_name', '=', condition.property_name)
            .where('value', '=', condition.value)
            .where('value_type', '=', condition.value_type),
        );
      }
      if (filter.q) {
        // Folded columns, written beside the text, since neither database's lower() folds every script alike.
        const pattern = foldedContains(filter.q);
        const like = (column: string) => sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
        query = query.where((eb) =>
          eb.or([
            like('name_folded'),
            eb(
              'part_index',
              'in',
              eb
                .selectFrom('model_part_properties')
                .select('part_index')
                .where('model_id', '=', id)
                .where(like('value_folded')),
            ),
          ]),
        );
      }
      return query.orderBy('part_index').execute();
    },

    /** One part of a model by its group id, with its properties. */
    async part(id: string, groupId: string): Promise<ModelPartRow | undefined> {
      return db
        .selectFrom('model_parts')
        .selectAll()
        .where('model_id', '=', id)
        .where('group_id', '=', groupId)
        .executeTakeFirst();
    },

    /** The parts of a model in scene order. */
    async parts(id: string): Promise<ModelPartRow[]> {
      return db
        .selectFrom('model_parts')
        .selectAll()
        .where('model_id', '=', id)
        .orderBy('part_index')
        .execute();
    },
  };
}
