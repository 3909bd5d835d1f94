import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import type { DialectName } from '../db/create-db.ts';
import type { Database, Db, ModelPartRow, ModelRow, NewModelRow } from '../db/database.ts';
import { chunks, idChunkSize, inStringSet } from '../db/id-set.ts';
import { inTransaction } from '../db/in-transaction.ts';
import { raiseGenerationAfterCommit, raiseGenerationWithin } from '../db/material-generation.ts';
import { nowIso } from '../db/timestamps.ts';
import type { ConversionResult } from '../pipeline/types.ts';
import type { MODEL_SORT_FIELDS, ModelSort, ModelStatus } from './schemas.ts';

/** A stored level of detail: the blob key of its GLB and what it holds. */
export interface StoredLod {
  level: 0 | 1 | 2;
  key: string;
  triangle_count: number;
  size: number;
  /** Geometric error against LOD 0 relative to the model's diagonal; absent on models converted before it was measured. */
  error?: number;
  /** Whether the level is a simplified file of its own (see `LodOutput`); absent on models converted before. */
  reduced?: boolean;
}

/** What a finished conversion records on its model: the pipeline's result with its LODs stored. */
export interface ConversionRecord extends Omit<ConversionResult, 'lods'> {
  lods: StoredLod[];
}

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

/** Creates the repository over an open database, or over a transaction to take part in a larger unit of work. */
export function createModelRepository({ db, dialect }: { db: Db; dialect: DialectName }) {
  return {
    /** Inserts a new model. */
    async create(row: Omit<NewModelRow, 'created_at' | 'updated_at'>): Promise<ModelRow> {
      const now = nowIso();
      return db
        .insertInto('models')
        .values({ ...row, created_at: now, updated_at: now })
        .returningAll()
        .executeTakeFirstOrThrow();
    },

    /** One model, or undefined. */
    async get(id: string): Promise<ModelRow | undefined> {
      return db.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Models matching the filters, newest first, with the count of all matches. */
    async list(query: ModelListQuery): Promise<{ rows: ModelRow[]; total: number }> {
      let base = db.selectFrom('models');
      if (query.status) base = base.where('status', '=', query.status);
      if (query.format) base = base.where('format', '=', query.format.toLowerCase());
      if (query.search) {
        const pattern = `%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        base = base.where(
          sql<boolean>`(lower(name) like ${pattern} escape '\\' or lower(description) like ${pattern} escape '\\' or lower(original_filename) like ${pattern} escape '\\')`,
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
          ...(tags ? { tags: JSON.stringify(tags) } : {}),
          ...(up ? { up_axis: up } : {}),
          updated_at: nowIso(),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
    },

    /** Moves a model to a state with a progress and an error text. */
    async setStatus(
      id: string,
      status: ModelStatus,
      progress: number,
      error: string | null = null,
    ): Promise<boolean> {
      const result = await db
        .updateTable('models')
        .set({ status, progress, error, updated_at: nowIso() })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Ids of models `pending` or `processing` that nothing has written since `before`, oldest first. */
    async untouchedInProgress(before: string, limit: number): Promise<string[]> {
      const rows = await db
        .selectFrom('models')
        .select('id')
        .where('status', 'in', ['pending', 'processing'])
        .where('updated_at', '<', before)
        .orderBy('updated_at')
        .limit(limit)
        .execute();
      return rows.map((row) => row.id);
    },

    /**
     * Fails a model that is still `pending` or `processing` and untouched since `before`, in one statement, so a
     * conversion that moved on meanwhile, a reprocess, or another process's sweep leaves it alone. The row, or
     * undefined when it was left alone.
     */
    async failUntouched(id: string, before: string, error: string): Promise<ModelRow | undefined> {
      return db
        .updateTable('models')
        .set({ status: 'failed', progress: 0, error, updated_at: nowIso() })
        .where('id', '=', id)
        .where('status', 'in', ['pending', 'processing'])
        .where('updated_at', '<', before)
        .returningAll()
        .executeTakeFirst();
    },

    /** Records conversion progress while processing; never moves a model backwards or out of `processing`. */
    async setProgress(id: string, progress: number): Promise<void> {
      await db
        .updateTable('models')
        .set({ progress, updated_at: nowIso() })
        .where('id', '=', id)
        .where('status', '=', 'processing')
        .where('progress', '<', progress)
        .execute();
    },

    /** Stores a finished conversion and its parts in one transaction and marks the model completed. */
    async complete(id: string, record: ConversionRecord): Promise<boolean> {
      return inTransaction(db, async (trx) => {
        const result = await trx
          .updateTable('models')
          .set({
            status: 'completed',
            progress: 100,
            error: null,
            lods: JSON.stringify(record.lods),
            triangle_count: record.triangle_count,
            vertex_count: record.vertex_count,
            part_count: record.parts.length,
            bounds: JSON.stringify(record.bounds),
            source_unit: record.source_unit,
            source_up_axis: record.source_up_axis,
            updated_at: nowIso(),
          })
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return false;
        await trx.deleteFrom('model_parts').where('model_id', '=', id).execute();
        // Chunked: each row binds 8 values, well under SQLite's 32,766 and PostgreSQL's 65,535 parameters.
        const rows = record.parts.map((part, index) => ({
          model_id: id,
          part_index: index,
          group_id: part.group_id,
          name: part.name,
          path: part.path,
          triangle_count: part.triangle_count,
          vertex_count: part.vertex_count,
          bounds: JSON.stringify(part.bounds),
        }));
        for (let start = 0; start < rows.length; start += 2_000) {
          await trx
            .insertInto('model_parts')
            .values(rows.slice(start, start + 2_000))
            .execute();
        }
        return true;
      });
    },

    /**
     * Puts a model back to `pending` with progress 0 and no error, unless it is already pending or processing.
     * Its LODs, parts and thumbnail stay (the API hides LODs until it completes) and are replaced when the next
     * conversion completes. Undefined when the model does not exist or is being converted.
     */
    async resetForReprocess(id: string): Promise<ModelRow | undefined> {
      return db
        .updateTable('models')
        .set({ status: 'pending', progress: 0, error: null, updated_at: nowIso() })
        .where('id', '=', id)
        .where('status', 'not in', ['pending', 'processing'])
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * Makes `key` the model's thumbnail, recording where it came from. With `keepUploaded` an uploaded thumbnail
     * stays and `kept` is true. Undefined when the model does not exist.
     */
    async setThumbnail(
      id: string,
      key: string,
      source: ThumbnailSource,
      options: { keepUploaded?: boolean } = {},
    ): Promise<{ previous: string | null; row: ModelRow; kept: boolean } | undefined> {
      return inTransaction(db, async (trx) => {
        const before = await trx
          .selectFrom('models')
          .select(['thumbnail_key', 'thumbnail_source'])
          .where('id', '=', id)
          .executeTakeFirst();
        if (!before) return undefined;
        let update = trx
          .updateTable('models')
          .set({ thumbnail_key: key, thumbnail_source: source, updated_at: nowIso() })
          .where('id', '=', id);
        // Checked again in the update itself, so an upload that lands while a render runs is never overwritten.
        if (options.keepUploaded)
          update = update.where((eb) =>
            eb.or([eb('thumbnail_source', 'is', null), eb('thumbnail_source', '!=', 'uploaded')]),
          );
        const row = await update.returningAll().executeTakeFirst();
        if (row) return { previous: before.thumbnail_key, row, kept: false };
        const current = await trx.selectFrom('models').selectAll().where('id', '=', id).executeTakeFirst();
        return current ? { previous: current.thumbnail_key, row: current, kept: true } : undefined;
      });
    },

    /**
     * Takes the model for one thumbnail render for `leaseMs` unless another render holds it; false when one does
     * (or the model is gone). The lease lapses by itself, so a worker that dies mid-render blocks nobody for long.
     */
    async claimThumbnailRender(id: string, leaseMs: number): Promise<boolean> {
      const now = new Date();
      const result = await db
        .updateTable('models')
        .set({ thumbnail_render_until: new Date(now.getTime() + leaseMs).toISOString() })
        .where('id', '=', id)
        .where((eb) =>
          eb.or([
            eb('thumbnail_render_until', 'is', null),
            eb('thumbnail_render_until', '<', now.toISOString()),
          ]),
        )
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Gives the model back after a render took it with {@link claimThumbnailRender}. */
    async releaseThumbnailRender(id: string): Promise<void> {
      await db.updateTable('models').set({ thumbnail_render_until: null }).where('id', '=', id).execute();
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

    /** The parts of a model in scene order. */
    async parts(id: string): Promise<ModelPartRow[]> {
      return db
        .selectFrom('model_parts')
        .selectAll()
        .where('model_id', '=', id)
        .orderBy('part_index')
        .execute();
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
