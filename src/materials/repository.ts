import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { MaterialRow, NewMaterialRow } from '../db/database.ts';
import { readChangesSince, type ChangesSince } from '../db/material-generation.ts';
import { configurationExists } from './configured-lookup.ts';
import { toMaterial } from './material-row.ts';
import { readLookupSnapshot } from './lookup-reads.ts';
import { createLookupWrites } from './lookup-writes.ts';
import { createSqliteReads, type LookupSnapshot } from './sqlite-reads.ts';
import { foldedContains, searchFold } from '../db/search-fold.ts';
import { nowIso } from '../db/timestamps.ts';
import { MATERIAL_DEFAULTS } from './material-defaults.ts';
import { MATERIAL_NUMBER_FIELDS, type Material } from './schemas.ts';

/** Fields a create or update may set. */
export type MaterialInput = Partial<Omit<Material, 'id' | 'created_at' | 'updated_at'>>;

// Request bodies may carry fields the API ignores; only columns of the table may reach the SQL. A name goes with
// its folded copy, which the name search compares.
function materialColumns(input: MaterialInput): MaterialInput & { name_folded?: string } {
  const columns: MaterialInput & { name_folded?: string } = {};
  if (input.name !== undefined)
    Object.assign(columns, { name: input.name, name_folded: searchFold(input.name) });
  for (const field of MATERIAL_NUMBER_FIELDS) if (input[field] !== undefined) columns[field] = input[field];
  return columns;
}

/** A page of results with the count of all matches. */
export interface Page<T> {
  items: T[];
  total: number;
}

/** The material service's data access: the only code that queries materials and bindings. */
export type MaterialRepository = ReturnType<typeof createMaterialRepository>;

/** The answer of a bulk lookup, with the material generation it was read at (one snapshot). */
export interface LookupResult {
  generation: number;
  /** The material bound to each requested group that has one. */
  bound: Map<string, Material>;
}

/** Options of {@link createMaterialRepository}. */
export interface MaterialRepositoryOptions {
  /** Told when a binding transaction failed on a PostgreSQL deadlock and is run again (none are expected). */
  onDeadlockRetry?: (error: unknown) => void;
}

/** A lookup's answer from the rows of its snapshot. */
function lookupResultOf(snapshot: LookupSnapshot): LookupResult {
  const materials = new Map<number, Material>();
  for (const row of snapshot.materials) materials.set(Number(row.id), toMaterial(row));
  const bound = new Map<string, Material>();
  for (const [groupId, materialId] of snapshot.materialOf) {
    // A material deleted between the two reads takes its bindings with it: the group is then unbound.
    const material = materials.get(materialId);
    if (material) bound.set(groupId, material);
  }
  return { generation: snapshot.generation, bound };
}

/** Creates the repository over an open database. */
export function createMaterialRepository(
  handle: DatabaseHandle,
  { onDeadlockRetry }: MaterialRepositoryOptions = {},
) {
  const { db, dialect, sqliteReader, postgresPool } = handle;
  // The hot path of single reads on PostgreSQL: a named statement, parsed and planned once per connection. Its
  // columns are listed, so a column added by a later migration cannot change the result a prepared plan returns.
  const selectById = {
    name: 'vitrine-material-by-id',
    text: `select ${['id', 'name', ...MATERIAL_NUMBER_FIELDS, 'created_at', 'updated_at'].join(', ')} from materials where id = $1`,
  };
  const fastReads = sqliteReader && createSqliteReads(sqliteReader);
  const writes = createLookupWrites(handle, onDeadlockRetry);

  return {
    /** Materials whose name contains `name` (in any case, folded as search folds it; `%`/`_` literal), by id. */
    async list(options: { offset: number; limit: number; name?: string }): Promise<Page<Material>> {
      let query = db.selectFrom('materials');
      if (options.name) {
        query = query.where(sql<boolean>`name_folded like ${foldedContains(options.name)} escape '\\'`);
      }
      const [rows, count] = await Promise.all([
        query.selectAll().orderBy('id').limit(options.limit).offset(options.offset).execute(),
        query.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
      ]);
      return { items: rows.map(toMaterial), total: Number(count.total) };
    },

    /** Inserts a material, filling omitted fields with {@link MATERIAL_DEFAULTS}. */
    async create(input: MaterialInput & { name: string }): Promise<Material> {
      const now = nowIso();
      const row: NewMaterialRow = {
        ...MATERIAL_DEFAULTS,
        ...materialColumns(input),
        name: input.name,
        name_folded: searchFold(input.name),
        created_at: now,
        updated_at: now,
      };
      const created = await db.insertInto('materials').values(row).returningAll().executeTakeFirstOrThrow();
      return toMaterial(created);
    },

    /** One material, or undefined. */
    async get(id: number): Promise<Material | undefined> {
      if (fastReads) {
        const row = fastReads.material(id);
        return row && toMaterial(row);
      }
      if (postgresPool) {
        const { rows } = await postgresPool.query<MaterialRow>({ ...selectById, values: [id] });
        return rows[0] && toMaterial(rows[0]);
      }
      return db
        .selectFrom('materials')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst()
        .then((row) => row && toMaterial(row));
    },

    /** Changes the given fields only and bumps `updated_at`; undefined when the material does not exist. */
    async update(id: number, input: MaterialInput): Promise<Material | undefined> {
      const row = await writes.update(id, materialColumns(input));
      return row && toMaterial(row);
    },

    /** Deletes a material and its bindings in one transaction; returns the unbound group ids, undefined when it did not exist. */
    async delete(id: number): Promise<string[] | undefined> {
      return writes.delete(id);
    },

    /** Binds every group to the material, moving groups bound elsewhere; false when the material does not exist. */
    async bind(id: number, groupIds: readonly string[]): Promise<boolean> {
      return writes.bind(id, groupIds);
    },

    /** Removes the given groups' bindings to this material; returns the ids really removed, or undefined when it does not exist. */
    async unbind(id: number, groupIds: readonly string[]): Promise<Set<string> | undefined> {
      return writes.unbind(id, groupIds);
    },

    /** The material's group ids in byte order, a page at a time; undefined when the material does not exist. */
    async groups(id: number, options: { offset: number; limit: number }): Promise<Page<string> | undefined> {
      return db.transaction().execute(async (trx) => {
        const material = await trx
          .selectFrom('materials')
          .select('id')
          .where('id', '=', id)
          .executeTakeFirst();
        if (!material) return undefined;
        const rows = await trx
          .selectFrom('material_bindings')
          .select('group_id')
          .where('material_id', '=', id)
          .orderBy('group_id')
          .limit(options.limit)
          .offset(options.offset)
          .execute();
        const count = await trx
          .selectFrom('material_bindings')
          .select((eb) => eb.fn.countAll<number>().as('total'))
          .where('material_id', '=', id)
          .executeTakeFirstOrThrow();
        return { items: rows.map((row) => row.group_id), total: Number(count.total) };
      });
    },

    /**
     * The material bound to each of the given groups that has one, and the material generation, read in one
     * snapshot: a reply kept under that generation stays exact until the generation moves.
     */
    async lookup(groupIds: readonly string[]): Promise<LookupResult> {
      return lookupResultOf((await readLookupSnapshot(handle, fastReads, groupIds))!);
    },

    /**
     * As {@link lookup}, with the bindings of a configuration over the present ones: a group the configuration
     * binds shows its material there. Undefined when there is no such configuration. Read in the same snapshot
     * as the generation, as a plain lookup is.
     */
    async lookupConfigured(
      groupIds: readonly string[],
      configurationId: string,
    ): Promise<LookupResult | undefined> {
      const snapshot = await readLookupSnapshot(handle, fastReads, groupIds, configurationId);
      return snapshot && lookupResultOf(snapshot);
    },

    /** Whether a configuration exists (a kept configured reply is good only while it does). */
    configurationExists: (configurationId: string) => configurationExists(db, configurationId),

    /**
     * The material generation read at once from SQLite's reader connection, undefined on PostgreSQL, where it
     * is a round trip like the row itself and so saves nothing on a single read.
     */
    localGeneration(): number | undefined {
      return fastReads?.generation();
    },

    /**
     * What changed after generation `since` (groups whose bindings may differ, materials whose fields do), with
     * the generation now; undefined when the change log no longer tells it all.
     */
    async changesSince(since: number): Promise<ChangesSince | undefined> {
      return fastReads ? fastReads.changesSince(since) : readChangesSince(db, dialect, since);
    },
  };
}
