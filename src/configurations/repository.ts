import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import { nowIso } from '../db/timestamps.ts';
import { lockModel } from '../db/model-lock.ts';
import { applyConfiguration } from './apply-configuration.ts';
import { groupsNotOf, unknownMaterials } from './binding-checks.ts';
import { createBindingWrites } from './binding-writes.ts';
import { createThumbnailRows } from './thumbnail-rows.ts';
import { readConfiguration, withCount } from './configuration-rows.ts';
import { configurationsWithBindings } from './configurations-with-bindings.ts';
import { MAX_CONFIGURATIONS, toStoredConfiguration, type StoredConfiguration } from './schemas.ts';

/** The configurations' data access: the only code that queries `configurations` and `configuration_bindings`. */
export type ConfigurationRepository = ReturnType<typeof createConfigurationRepository>;

/** Why a create or rename was refused. */
export type ConfigurationRefusal = 'name-taken' | 'too-many' | 'from-unknown';

function isUniqueViolation(error: unknown): boolean {
  return /unique|duplicate key/i.test((error as Error).message);
}

/** Creates the repository over an open database. */
export function createConfigurationRepository({ db, dialect }: Pick<DatabaseHandle, 'db' | 'dialect'>) {
  return {
    /** A model's configurations, oldest first. */
    async list(modelId: string): Promise<StoredConfiguration[]> {
      const rows = await withCount(db)
        .where('c.model_id', '=', modelId)
        .orderBy('c.created_at')
        .orderBy('c.id')
        .execute();
      return rows.map((row) => toStoredConfiguration({ ...row, binding_count: row.binding_count ?? 0 }));
    },

    /** One configuration of a model, or undefined. */
    async get(modelId: string, id: string): Promise<StoredConfiguration | undefined> {
      return readConfiguration(db, modelId, id);
    },

    /**
     * Creates a configuration, with the model's present bindings (`from` "current"), another configuration's
     * (`from` its id) or none; a refusal when the name is taken, the model has its maximum or `from` is unknown.
     */
    async create(
      modelId: string,
      input: { name: string; description: string; from?: string },
    ): Promise<StoredConfiguration | ConfigurationRefusal> {
      try {
        return await db.transaction().execute(async (trx) => {
          // Creates of one model go one at a time, so two cannot both count 99 and make the 101st.
          await lockModel(trx, modelId);
          const { n } = await trx
            .selectFrom('configurations')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('model_id', '=', modelId)
            .executeTakeFirstOrThrow();
          if (Number(n) >= MAX_CONFIGURATIONS) return 'too-many' as const;
          if (input.from !== undefined && input.from !== 'current') {
            const source = await trx
              .selectFrom('configurations')
              .select('id')
              .where('id', '=', input.from)
              .where('model_id', '=', modelId)
              .executeTakeFirst();
            if (!source) return 'from-unknown' as const;
          }
          const id = randomUUID();
          const now = nowIso();
          await trx
            .insertInto('configurations')
            .values({
              id,
              model_id: modelId,
              name: input.name,
              description: input.description,
              created_at: now,
              updated_at: now,
            })
            .execute();
          // Copied in one statement each, inside the database: no row crosses to the app.
          if (input.from === 'current') {
            await sql`
              insert into configuration_bindings (configuration_id, group_id, material_id)
              select ${id}, p.group_id, b.material_id from model_parts as p
              join material_bindings as b on b.group_id = p.group_id
              where p.model_id = ${modelId}`.execute(trx);
          } else if (input.from !== undefined) {
            await sql`
              insert into configuration_bindings (configuration_id, group_id, material_id)
              select ${id}, group_id, material_id from configuration_bindings
              where configuration_id = ${input.from}`.execute(trx);
          }
          return (await readConfiguration(trx, modelId, id))!;
        });
      } catch (error) {
        // Two creates racing for one name: the unique constraint decides.
        if (isUniqueViolation(error)) return 'name-taken';
        throw error;
      }
    },

    /** Renames or redescribes; undefined when the model has no such configuration. */
    async update(
      modelId: string,
      id: string,
      patch: { name?: string; description?: string },
    ): Promise<StoredConfiguration | 'name-taken' | undefined> {
      try {
        const result = await db
          .updateTable('configurations')
          .set({ ...patch, updated_at: nowIso() })
          .where('id', '=', id)
          .where('model_id', '=', modelId)
          .executeTakeFirst();
        if (Number(result.numUpdatedRows) === 0) return undefined;
        return readConfiguration(db, modelId, id);
      } catch (error) {
        if (isUniqueViolation(error)) return 'name-taken';
        throw error;
      }
    },

    /**
     * Deletes a configuration and its bindings; answers the blob key of its thumbnail (null when it had none) for
     * the caller to remove, or undefined when the model has no such configuration.
     */
    async delete(modelId: string, id: string): Promise<{ thumbnailKey: string | null } | undefined> {
      const row = await db
        .deleteFrom('configurations')
        .where('id', '=', id)
        .where('model_id', '=', modelId)
        .returning('thumbnail_key')
        .executeTakeFirst();
      return row && { thumbnailKey: row.thumbnail_key };
    },

    ...createThumbnailRows(db),
    ...createBindingWrites({ db, dialect }),
    /** The given group ids that are not parts of the model, in their order. */
    groupsNotOf: (modelId: string, groupIds: readonly string[]) =>
      groupsNotOf({ db, dialect }, modelId, groupIds),
    /** The given material ids that name no material, ascending. */
    unknownMaterials: (materialIds: readonly number[]) => unknownMaterials({ db, dialect }, materialIds),
    /** The model's configurations (or one) with their bindings; see {@link configurationsWithBindings}. */
    withBindings: (modelId: string, onlyId?: string) => configurationsWithBindings(db, modelId, onlyId),
    /** Makes a configuration's bindings the model's; see {@link applyConfiguration}. */
    apply: (modelId: string, id: string) => applyConfiguration({ db, dialect }, modelId, id),
  };
}
