import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { Db, MaterialRow, NewMaterialRow } from '../db/database.ts';
import { chunks, idChunkSize, inStringSet, stringSet } from '../db/id-set.ts';
import {
  raiseGenerationAfterCommit,
  raiseGenerationWithin,
  readChangesSince,
  readMaterialGeneration,
  type ChangesSince,
  type MaterialChange,
} from '../db/material-generation.ts';
import { retryOnDeadlock } from '../db/retry-deadlock.ts';
import { insertNewBindings, NEW_BINDINGS_MIN_GROUPS } from './insert-new-bindings.ts';
import { createSqliteReads, type LookupSnapshot } from './sqlite-reads.ts';
import { nowIso, toIso } from '../db/timestamps.ts';
import { MATERIAL_DEFAULTS } from './material-defaults.ts';
import { MATERIAL_NUMBER_FIELDS, type Material } from './schemas.ts';

/** Fields a create or update may set. */
export type MaterialInput = Partial<Omit<Material, 'id' | 'created_at' | 'updated_at'>>;

// Request bodies may carry fields the API ignores; only columns of the table may reach the SQL.
function materialColumns(input: MaterialInput): MaterialInput {
  const columns: MaterialInput = {};
  if (input.name !== undefined) columns.name = input.name;
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

/** Creates the repository over an open database. */
export function createMaterialRepository(
  { db, dialect, sqliteReader, postgresPool }: DatabaseHandle,
  { onDeadlockRetry }: MaterialRepositoryOptions = {},
) {
  const toMaterial = (row: MaterialRow): Material => ({
    ...row,
    id: Number(row.id),
    created_at: toIso(row.created_at),
    updated_at: toIso(row.updated_at),
  });

  const chunkSize = idChunkSize(dialect);
  // The hot path of single reads on PostgreSQL: a named statement, parsed and planned once per connection. Its
  // columns are listed, so a column added by a later migration cannot change the result a prepared plan returns.
  const selectById = {
    name: 'vitrine-material-by-id',
    text: `select ${['id', 'name', ...MATERIAL_NUMBER_FIELDS, 'created_at', 'updated_at'].join(', ')} from materials where id = $1`,
  };
  // Every binding statement locks in one order, so a deadlock can only come from outside this repository (a
  // model's deletion removing its bindings); the retry is the safety net, and the callback makes it visible.
  const retryWrites = <T>(run: () => Promise<T>) => retryOnDeadlock(run, { onRetry: onDeadlockRetry });
  const postgres = dialect === 'postgres';
  const fastReads = sqliteReader && createSqliteReads(sqliteReader);
  // PostgreSQL's binding column compares in "C" (byte) order, and so must the ids it is sorted against.
  const byteOrder = postgres ? sql` collate "C"` : sql``;

  /**
   * Whether the material exists, locking its row on PostgreSQL until the transaction ends: `key share` while
   * binding (binds and unbinds run side by side, a delete waits), `update` to delete it. The material row is
   * always the first lock a binding transaction takes; SQLite runs one writer at a time and needs none.
   */
  async function lockMaterial(trx: Db, id: number, mode: 'key share' | 'update'): Promise<boolean> {
    let query = trx.selectFrom('materials').select('id').where('id', '=', id);
    if (postgres) query = mode === 'update' ? query.forUpdate() : query.forKeyShare();
    return (await query.executeTakeFirst()) !== undefined;
  }

  /**
   * Deletes the material's bindings of the given groups (all of them when `groupIds` is undefined) and returns the
   * removed group ids. On PostgreSQL the rows are locked first in byte order of group id, the order a bind locks
   * them in, since a plain DELETE visits them in whatever order its scan finds them.
   */
  async function deleteBindings(
    trx: Db,
    id: number,
    groupIds: readonly string[] | undefined,
  ): Promise<string[]> {
    const inGroups = groupIds ? sql`and ${inStringSet('group_id', dialect, groupIds)}` : sql``;
    const { rows } = postgres
      ? await sql<{ group_id: string }>`
          with doomed as (
            select group_id from material_bindings where material_id = ${id} ${inGroups}
            order by group_id for update
          )
          delete from material_bindings as b using doomed where b.group_id = doomed.group_id
          returning b.group_id`.execute(trx)
      : await sql<{ group_id: string }>`
          delete from material_bindings where material_id = ${id} ${inGroups}
          returning group_id`.execute(trx);
    return rows.map((row) => row.group_id);
  }

  /**
   * Runs a write that can change a lookup's answer in a transaction (again on a deadlock), raising the material
   * generation with what `changed` says the result changed, if anything: within the transaction on SQLite, right
   * after the commit on PostgreSQL (see material-generation.ts).
   */
  async function writeLookupData<T>(
    work: (trx: Db) => Promise<T>,
    changed: (result: T) => MaterialChange | undefined,
  ): Promise<T> {
    const result = await retryWrites(() =>
      db.transaction().execute(async (trx) => {
        const done = await work(trx);
        const change = changed(done);
        if (change) await raiseGenerationWithin(trx, dialect, change);
        return done;
      }),
    );
    const change = changed(result);
    if (change) await raiseGenerationAfterCommit(db, dialect, change);
    return result;
  }

  /**
   * A lookup's rows. Two narrow reads instead of one wide join: 100,000 bindings usually share a few materials,
   * and building 100,000 seventeen-column rows was most of the time of a large lookup.
   */
  async function readLookup(
    trx: Db,
    groupIds: readonly string[],
    generation: number,
  ): Promise<LookupSnapshot> {
    const materialOf = new Map<string, number>();
    for (const chunk of chunks(groupIds, chunkSize)) {
      // Measured fastest on each: `= any($1)` on PostgreSQL (see inStringSet); on SQLite a join driven by the
      // requested ids, which probes the unique index once per id.
      const { rows } = postgres
        ? await sql<{ group_id: string; material_id: number }>`
            select group_id, material_id from material_bindings
            where ${inStringSet('group_id', dialect, chunk)}`.execute(trx)
        : await sql<{ group_id: string; material_id: number }>`
            select b.group_id, b.material_id from (${stringSet(dialect, chunk)}) as ids
            join material_bindings as b on b.group_id = ids.value`.execute(trx);
      for (const row of rows) materialOf.set(row.group_id, Number(row.material_id));
    }
    const materials: MaterialRow[] = [];
    for (const chunk of chunks([...new Set(materialOf.values())])) {
      materials.push(...(await trx.selectFrom('materials').selectAll().where('id', 'in', chunk).execute()));
    }
    return { generation, materialOf, materials };
  }

  return {
    /** Materials whose name contains `name` (case-insensitive, `%`/`_` literal), by id ascending. */
    async list(options: { offset: number; limit: number; name?: string }): Promise<Page<Material>> {
      let query = db.selectFrom('materials');
      if (options.name) {
        const pattern = `%${options.name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        query = query.where(sql<boolean>`lower(name) like ${pattern} escape '\\'`);
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
      const row = await writeLookupData(
        (trx) =>
          trx
            .updateTable('materials')
            .set({ ...materialColumns(input), updated_at: nowIso() })
            .where('id', '=', id)
            .returningAll()
            .executeTakeFirst(),
        (updated) => (updated ? { materialId: id } : undefined),
      );
      return row && toMaterial(row);
    },

    /** Deletes a material and its bindings in one transaction; returns the unbound group ids, undefined when it did not exist. */
    async delete(id: number): Promise<string[] | undefined> {
      return writeLookupData(
        async (trx) => {
          // Waits for binds in flight to this material and keeps new ones out until the material is gone.
          if (!(await lockMaterial(trx, id, 'update'))) return undefined;
          const unbound = await deleteBindings(trx, id, undefined);
          await trx.deleteFrom('materials').where('id', '=', id).execute();
          return unbound;
        },
        (unbound) => unbound && { groupIds: unbound },
      );
    },

    /** Binds every group to the material, moving groups bound elsewhere; false when the material does not exist. */
    async bind(id: number, groupIds: readonly string[]): Promise<boolean> {
      return writeLookupData(
        async (trx) => {
          if (!(await lockMaterial(trx, id, 'key share'))) return false;
          const now = nowIso();
          for (const chunk of chunks(groupIds, chunkSize)) {
            if (postgres && chunk.length >= NEW_BINDINGS_MIN_GROUPS) {
              if (await insertNewBindings(trx, id, now, chunk)) continue;
            }
            // Rows are inserted, and conflicting rows locked, in byte order of group id: the one order every
            // binding statement locks in, so concurrent binds, unbinds and deletes wait but never deadlock.
            await sql`
              insert into material_bindings (group_id, material_id, created_at)
              select ids.value, ${id}, ${now} from (${stringSet(dialect, chunk)}) as ids
              order by ids.value${byteOrder}
              on conflict (group_id) do update set material_id = excluded.material_id, created_at = excluded.created_at
              where material_bindings.material_id <> excluded.material_id`.execute(trx);
          }
          return true;
        },
        (bound) => (bound ? { groupIds } : undefined),
      );
    },

    /** Removes the given groups' bindings to this material; returns the ids really removed, or undefined when it does not exist. */
    async unbind(id: number, groupIds: readonly string[]): Promise<Set<string> | undefined> {
      return writeLookupData(
        async (trx) => {
          if (!(await lockMaterial(trx, id, 'key share'))) return undefined;
          const removed = new Set<string>();
          for (const chunk of chunks(groupIds, chunkSize)) {
            for (const groupId of await deleteBindings(trx, id, chunk)) removed.add(groupId);
          }
          return removed;
        },
        (removed) => (removed && removed.size > 0 ? { groupIds: [...removed] } : undefined),
      );
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
      let snapshot: LookupSnapshot;
      if (fastReads) snapshot = fastReads.lookup(groupIds, chunkSize);
      else if (postgres) {
        // Read before the snapshot is taken: a raise comes after its commit (see material-generation.ts).
        const generation = await readMaterialGeneration(db, dialect);
        snapshot = await db
          .transaction()
          .setIsolationLevel('repeatable read')
          .execute((trx) => readLookup(trx, groupIds, generation));
      } else {
        snapshot = await db.transaction().execute(async (trx) => {
          return readLookup(trx, groupIds, await readMaterialGeneration(trx, dialect));
        });
      }
      const materials = new Map<number, Material>();
      for (const row of snapshot.materials) materials.set(Number(row.id), toMaterial(row));
      const bound = new Map<string, Material>();
      for (const [groupId, materialId] of snapshot.materialOf) {
        // A material deleted between the two reads takes its bindings with it: the group is then unbound.
        const material = materials.get(materialId);
        if (material) bound.set(groupId, material);
      }
      return { generation: snapshot.generation, bound };
    },

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
