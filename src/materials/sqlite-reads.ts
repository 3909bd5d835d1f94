import type SQLite from 'better-sqlite3';
import type { MaterialRow } from '../db/database.ts';
import { chunks } from '../db/id-set.ts';
import { sumChanges, type ChangesSince } from '../db/material-generation.ts';

/** The rows a bulk lookup needs, read in one snapshot with the material generation. */
export interface LookupSnapshot {
  generation: number;
  /** The material id bound to each requested group that has one. */
  materialOf: Map<string, number>;
  /** Every material some requested group is bound to. */
  materials: MaterialRow[];
}

/**
 * The material service's hottest reads straight on SQLite's read-only connection: a single material and the bulk
 * lookup, as prepared statements. Measured against the same reads through the query builder, a single read spent
 * most of its database time in the builder's connection hand-off, not in SQLite.
 */
export function createSqliteReads(reader: SQLite.Database) {
  // Prepared on first use: the connection opens before migrations have made the tables.
  let statements:
    | {
        material: SQLite.Statement<[number], MaterialRow>;
        generation: SQLite.Statement<[], number>;
        bindings: SQLite.Statement<[string], { group_id: string; material_id: number }>;
        configuredBindings: SQLite.Statement<[string, string], { group_id: string; material_id: number }>;
        configuration: SQLite.Statement<[string], number>;
        materials: SQLite.Statement<[string], MaterialRow>;
        changes: SQLite.Statement<[number, number], { material_id: number | null; group_ids: string | null }>;
      }
    | undefined;
  const prepared = () =>
    (statements ??= {
      material: reader.prepare('select * from materials where id = ?'),
      // One integer, plucked: no row object to build on the hot single reads that check it.
      generation: reader.prepare<[], number>('select value from material_generation where id = 1').pluck(),
      bindings: reader.prepare(
        'select b.group_id, b.material_id from json_each(?) as ids join material_bindings as b on b.group_id = ids.value',
      ),
      // Each requested id probes the configuration's primary key, then the present bindings' unique index.
      configuredBindings: reader.prepare(
        `select ids.value as group_id, coalesce(c.material_id, b.material_id) as material_id
         from json_each(?) as ids
         left join configuration_bindings as c on c.configuration_id = ? and c.group_id = ids.value
         left join material_bindings as b on b.group_id = ids.value
         where c.material_id is not null or b.material_id is not null`,
      ),
      configuration: reader.prepare<[string], number>('select 1 from configurations where id = ?').pluck(),
      materials: reader.prepare('select * from materials where id in (select value from json_each(?))'),
      changes: reader.prepare(
        'select material_id, group_ids from material_changes where generation > ? and generation <= ?',
      ),
    });

  // One read transaction: the generation and every row come from the same commit.
  const readLookup = reader.transaction(
    (
      groupIds: readonly string[],
      chunkSize: number,
      configurationId?: string,
    ): LookupSnapshot | undefined => {
      const { generation, bindings, configuredBindings, configuration, materials } = prepared();
      if (configurationId !== undefined && configuration.get(configurationId) === undefined) return undefined;
      const materialOf = new Map<string, number>();
      for (const chunk of chunks(groupIds, chunkSize)) {
        const rows =
          configurationId === undefined
            ? bindings.all(JSON.stringify(chunk))
            : configuredBindings.all(JSON.stringify(chunk), configurationId);
        for (const row of rows) materialOf.set(row.group_id, row.material_id);
      }
      return {
        generation: generation.get()!,
        materialOf,
        materials: materials.all(JSON.stringify([...new Set(materialOf.values())])),
      };
    },
  );

  // The generation and the change rows up to it from the same commit.
  const readChanges = reader.transaction((since: number): ChangesSince | undefined => {
    const { generation, changes } = prepared();
    const current = generation.get()!;
    return sumChanges(since, current, current === since ? [] : changes.all(since, current));
  });

  return {
    /** One material row, or undefined. */
    material: (id: number): MaterialRow | undefined => prepared().material.get(id),
    /** The current material generation. */
    generation: (): number => prepared().generation.get()!,
    /** What changed after generation `since`; see {@link sumChanges}. */
    changesSince: (since: number): ChangesSince | undefined => readChanges(since),
    /**
     * The bindings and materials of the given groups, with the generation, in one snapshot; with a configuration,
     * its bindings over the present ones (undefined when there is no such configuration).
     */
    lookup: (
      groupIds: readonly string[],
      chunkSize: number,
      configurationId?: string,
    ): LookupSnapshot | undefined => readLookup(groupIds, chunkSize, configurationId),
  };
}
