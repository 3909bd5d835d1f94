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
  created_at: string;
}

/** The share links' data access: the only code that queries `model_shares`. */
export type ShareRepository = ReturnType<typeof createShareRepository>;

/** Creates the repository over an open database. */
export function createShareRepository({ db }: DatabaseHandle) {
  const toShare = (row: ModelShareRow): StoredShare => ({
    id: row.id,
    model_id: row.model_id,
    secret: row.secret,
    created_at: toIso(row.created_at),
  });

  return {
    /** A new link to `modelId` with a fresh 256-bit secret. */
    async create(modelId: string): Promise<StoredShare> {
      const secret = newSecret();
      const row = await db
        .insertInto('model_shares')
        .values({
          id: randomUUID(),
          model_id: modelId,
          secret,
          secret_hash: secretDigest(secret),
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
      const digest = secretDigest(secret);
      const row = await db
        .selectFrom('model_shares')
        .select(['model_id', 'secret_hash'])
        .where('secret_hash', '=', digest)
        .executeTakeFirst();
      return row && sameDigest(row.secret_hash, digest) ? row.model_id : undefined;
    },
  };
}
