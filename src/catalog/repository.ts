import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DialectName } from '../db/create-db.ts';
import type { Database, Db, ModelRow, NewModelRow } from '../db/database.ts';
import { chunks, idChunkSize, inStringSet } from '../db/id-set.ts';
import { partReadAccess } from './part-reads.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { raiseGenerationAfterCommit, raiseGenerationWithin } from '../db/material-generation.ts';
import { nowIso } from '../db/timestamps.ts';
import { foldedContains, searchFold } from '../db/search-fold.ts';
import { modelStateAccess, thumbnailStateAccess } from './model-state.ts';
import type { MODEL_SORT_FIELDS, ModelSort, ModelStatus } from './schemas.ts';

/** Where a model's thumbnail came from: rendered by the service or uploaded by a person. */
export type ThumbnailSource = 'rendered' | 'uploaded';

/** Filters and paging of the model list. */
export interface ModelListQuery {
  search?: string;
  status?: ModelStatus;
  format?: string;
  /** Only models whose tags include this one, compared case-insensitively. */
  tag?: string;
  /** Order of the rows; `-created_at` (newest first) when absent. */
  sort?: ModelSort;
  limit: number;
  offset: number;
}

/** The columns the repository folds from name, description and file name for `search`; callers never set them. */
type FoldedColumn = 'name_folded' | 'description_folded' | 'original_filename_folded';

/** Metadata a client may change. */
export interface ModelMetadata {
  name?: string;
  description?: string;
  tags?: string[];
  /** Declared unit and up axis of a unitless file; the next conversion applies them. */
  unit?: string;
  up?: string;
}

/** A condition true when the JSON `tags` array holds `tag`, ignoring case. */
function hasTag(dialect: DialectName, tag: string): RawBuilder<boolean> {
  const wanted = tag.toLowerCase();
  return dialect === 'postgres'
    ? sql<boolean>`exists (select 1 from jsonb_array_elements_text(models.tags::jsonb) as t(value) where lower(t.value) = ${wanted})`
    : sql<boolean>`exists (select 1 from json_each(models.tags) as t where t.type = 'text' and lower(t.value) = ${wanted})`;
}

/**
 * Orders the list by `sort`, then by id in the same direction so pages never overlap. Names compare lower-cased in
 * byte order on both databases (PostgreSQL with `COLLATE "C"`); a missing triangle count sorts last either way.
 */
function orderModels<Q extends SelectQueryBuilder<Database, 'models', ModelRow>>(
  query: Q,
  dialect: DialectName,
  sort: ModelSort,
): Q {
  const direction = sort.startsWith('-') ? 'desc' : 'asc';
  const field = sort.replace(/^-/, '') as (typeof MODEL_SORT_FIELDS)[number];
  let ordered = query as SelectQueryBuilder<Database, 'models', ModelRow>;
  if (field === 'name') {
    const key = dialect === 'postgres' ? sql`lower(name) collate "C"` : sql`lower(name)`;
    ordered = ordered.orderBy(key, direction).orderBy('name', direction);
  } else if (field === 'triangle_count') {
    ordered = ordered.orderBy(sql`triangle_count is null`).orderBy('triangle_count', direction);
  } else {
    ordered = ordered.orderBy(field, direction);
  }
  return ordered.orderBy('id', direction) as Q;
}

/** The catalog's data access: the only code that queries models and parts. */
export type ModelRepository = ReturnType<typeof createModelRepository>;

/**
 * Creates the repository over an open database, or over a transaction to take part in a larger unit of work. With
 * `readDb` (SQLite's read-only connection) the model and part reads go through it: they see the last commit and do
 * not wait while a long transaction holds the writer connection.
 */
export function createModelRepository({
  db,
  dialect,
  readDb,
}: {
  db: Db;
  dialect: DialectName;
  readDb?: Db;
}) {
  const reads = readDb ?? db;
  return {
    // A model's conversion and thumbnail state, written by the jobs (model-state.ts).
    ...modelStateAccess(db),
    ...thumbnailStateAccess(db),
    // A model's parts, whole or filtered (part-reads.ts).
    ...partReadAccess(reads),
    /** Inserts a new model. */
    async create(row: Omit<NewModelRow, 'created_at' | 'updated_at' | FoldedColumn>): Promise<ModelRow> {
      const now = nowIso();
      return db
        .insertInto('models')
        .values({
          ...row,
          name_folded: searchFold(row.name),
          description_folded: searchFold(row.description),
          original_filename_folded: searchFold(row.original_filename),
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** One model, or undefined. */
    async get(id: string): Promise<ModelRow | undefined> {
      return reads.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Models matching the filters, newest first, with the count of all matches. */
    async list(query: ModelListQuery): Promise<{ rows: ModelRow[]; total: number }> {
      let base = reads.selectFrom('models');
      if (query.status) base = base.where('status', '=', query.status);
      if (query.format) base = base.where('format', '=', query.format.toLowerCase());
      if (query.search) {
        const pattern = foldedContains(query.search);
        base = base.where(
          sql<boolean>`(name_folded like ${pattern} escape '\\' or description_folded like ${pattern} escape '\\' or original_filename_folded like ${pattern} escape '\\')`,
        );
      }
      if (query.tag) base = base.where(hasTag(dialect, query.tag));
      const [rows, count] = await Promise.all([
        orderModels(base.selectAll(), dialect, query.sort ?? '-created_at')
          .limit(query.limit)
          .offset(query.offset)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      ]);
      return { rows, total: Number(count.total) };
    },

    /** Changes name, description or tags; undefined when the model does not exist. */
    async updateMetadata(id: string, metadata: ModelMetadata): Promise<ModelRow | undefined> {
      const { tags, up, ...rest } = metadata;
      return db
        .updateTable('models')
        .set({
          ...rest,
          ...(rest.name !== undefined && { name_folded: searchFold(rest.name) }),
          ...(rest.description !== undefined && { description_folded: searchFold(rest.description) }),
          ...(tags ? { tags: JSON.stringify(tags) } : {}),
          ...(up ? { up_axis: up } : {}),
          updated_at: nowIso(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    /** The distinct models with a part bound to the material, sorted. */
    async modelIdsOfMaterial(materialId: number): Promise<string[]> {
      const rows = await db
        .selectFrom('model_parts')
        .innerJoin('material_bindings', 'material_bindings.group_id', 'model_parts.group_id')
        .select('model_parts.model_id')
        .distinct()
        .where('material_bindings.material_id', '=', materialId)
        .orderBy('model_parts.model_id')
        .execute();
      return rows.map((row) => row.model_id);
    },

    /**
     * The distinct models that have parts with these group ids, sorted. The ids go as one bound parameter per
     * statement, not one each: PostgreSQL took 140 ms to parse and plan the twenty statements of 5,000 parameters
     * that a bind of 100,000 groups announced.
     */
    async modelIdsOfGroups(groupIds: readonly string[]): Promise<string[]> {
      const found = new Set<string>();
      for (const chunk of chunks(groupIds, idChunkSize(dialect))) {
        const rows = await db
          .selectFrom('model_parts')
          .select('model_id')
          .distinct()
          .where(inStringSet('group_id', dialect, chunk))
          .execute();
        for (const row of rows) found.add(row.model_id);
      }
      return [...found].sort();
    },

    /**
     * Deletes a model with its parts, and the material bindings of its group ids that no other model has, in one
     * transaction. Returns false when it did not exist. On PostgreSQL the bindings are locked first in byte order
     * of group id, the one order every bind and unbind locks them in, so a delete racing binds waits but never
     * deadlocks (a plain DELETE would lock them in whatever order its scan finds them).
     */
    async delete(id: string): Promise<boolean> {
      const deleted = await inTransaction(db, async (trx) => {
        const othersHaveIt = sql`exists (
          select 1 from model_parts as other
          where other.group_id = b.group_id and other.model_id <> ${id})`;
        const ownGroups = sql`b.group_id in (select group_id from model_parts where model_id = ${id})`;
        const { rows: unbound } =
          dialect === 'postgres'
            ? await sql<{ group_id: string }>`
                with doomed as (
                  select b.group_id from material_bindings as b
                  where ${ownGroups} and not ${othersHaveIt}
                  order by b.group_id for update
                )
                delete from material_bindings as b using doomed where b.group_id = doomed.group_id
                returning b.group_id`.execute(trx)
            : await sql<{ group_id: string }>`
                delete from material_bindings as b where ${ownGroups} and not ${othersHaveIt}
                returning group_id`.execute(trx);
        const result = await trx.deleteFrom('models').where('id', '=', id).executeTakeFirst();
        // Unconditional: the bindings removed above may change a kept lookup reply.
        const change = { groupIds: unbound.map((row) => row.group_id) };
        await raiseGenerationWithin(trx, dialect, change);
        return { deleted: Number(result.numDeletedRows) > 0, change };
      });
      await raiseGenerationAfterCommit(db, dialect, deleted.change);
      return deleted.deleted;
    },
  };
}
