import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { ModelShareRow } from '../db/database.ts';
import { nowIso, toIso } from '../db/timestamps.ts';
import { newSecret, sameDigest, secretDigest } from '../http/auth/secrets.ts';

/** A share link as the repository hands it out: the secret is kept so the link can be shown again. */
export interface StoredShare {
  id: string;
  model_id: string;
  secret: string;
  /** Whether the link's page shows the model's annotations. */
  annotations: boolean;
  /** Whether the link shows the model's configurations and their files. */
  configurations: boolean;
  /** The version the link pins, or null when it follows the model's current version. */
  version: number | null;
  created_at: string;
}

/** What a secret opens: its model, whether its annotations and configurations are shown, the version it pins. */
export interface OpenedShare {
  model_id: string;
  annotations: boolean;
  configurations: boolean;
  version: number | null;
}

/** The share links' data access: the only code that queries `model_shares`. */
export type ShareRepository = ReturnType<typeof createShareRepository>;

/** Creates the repository over an open database. */
export function createShareRepository({ db }: DatabaseHandle) {
  const toShare = (row: ModelShareRow): StoredShare => ({
    id: row.id,
    model_id: row.model_id,
    secret: row.secret,
    annotations: Number(row.annotations) === 1,
    configurations: Number(row.configurations) === 1,
    version: row.version,
    created_at: toIso(row.created_at),
  });

  /** What a secret opens (its model, whether annotations are shown), or undefined; compared as `modelOf` does. */
  const open = async (secret: string): Promise<OpenedShare | undefined> => {
    const digest = secretDigest(secret);
    // A pinned version that was deleted closes its link: the join finds no version row then.
    const row = await db
      .selectFrom('model_shares')
      .leftJoin('model_versions', (join) =>
        join
          .onRef('model_versions.model_id', '=', 'model_shares.model_id')
          .onRef('model_versions.number', '=', 'model_shares.version'),
      )
      .select([
        'model_shares.model_id',
        'model_shares.secret_hash',
        'model_shares.annotations',
        'model_shares.configurations',
        'model_shares.version',
        'model_versions.number as pinned',
      ])
      .where('model_shares.secret_hash', '=', digest)
      .executeTakeFirst();
    if (!row || !sameDigest(row.secret_hash, digest)) return undefined;
    if (row.version !== null && row.pinned === null) return undefined;
    return {
      model_id: row.model_id,
      annotations: Number(row.annotations) === 1,
      configurations: Number(row.configurations) === 1,
      version: row.version,
    };
  };

  return {
    open,

    /**
     * A new link to `modelId` with a fresh 256-bit secret, showing the model's annotations and configurations
     * when asked to and pinning `version` when given (the caller checks that the model has it).
     */
    async create(
      modelId: string,
      options: { annotations?: boolean; configurations?: boolean; version?: number | null } = {},
    ): Promise<StoredShare> {
      const secret = newSecret();
      const row = await db
        .insertInto('model_shares')
        .values({
          id: randomUUID(),
          model_id: modelId,
          secret,
          secret_hash: secretDigest(secret),
          annotations: options.annotations ? 1 : 0,
          configurations: options.configurations ? 1 : 0,
          version: options.version ?? null,
          created_at: nowIso(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toShare(row);
    },

    /** The links to a model, oldest first. */
    async list(modelId: string): Promise<StoredShare[]> {
      const rows = await db
        .selectFrom('model_shares')
        .selectAll()
        .where('model_id', '=', modelId)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toShare);
    },

    /** Deletes one link of a model; false when the model has no link with that id. */
    async delete(modelId: string, shareId: string): Promise<boolean> {
      const result = await db
        .deleteFrom('model_shares')
        .where('id', '=', shareId)
        .where('model_id', '=', modelId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /**
     * The model a secret opens, or undefined. The lookup goes by the secret's digest and the digests are compared
     * in constant time, so response times say nothing about how close a guess was.
     */
    async modelOf(secret: string): Promise<string | undefined> {
      return (await open(secret))?.model_id;
    },
  };
}
