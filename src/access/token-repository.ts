import { randomUUID } from 'node:crypto';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { ApiTokenRow } from '../db/database.ts';
import { nowIso, toIso } from '../db/timestamps.ts';
import type { StoredToken } from '../http/auth/token-checker.ts';
import { newSecret, SCOPED_TOKEN_PREFIX, secretDigest } from '../http/auth/secrets.ts';
import type { ApiToken, TokenScopeName } from './token-schemas.ts';

/** The scoped tokens' data access: the only code that queries `api_tokens`. */
export type TokenRepository = ReturnType<typeof createTokenRepository>;

/** Creates the repository over an open database. */
export function createTokenRepository({ db }: DatabaseHandle) {
  const toToken = (row: ApiTokenRow): ApiToken => ({
    id: row.id,
    name: row.name,
    scope: row.scope as TokenScopeName,
    expires_at: row.expires_at === null ? null : toIso(row.expires_at),
    created_at: toIso(row.created_at),
  });

  return {
    /** Stores a new token's digest; the secret is returned here and never again. */
    async create(input: {
      name: string;
      scope: TokenScopeName;
      expires_at: string | null;
    }): Promise<ApiToken & { token: string }> {
      const token = newSecret(SCOPED_TOKEN_PREFIX);
      const row = await db
        .insertInto('api_tokens')
        .values({
          id: randomUUID(),
          name: input.name,
          scope: input.scope,
          token_hash: secretDigest(token),
          expires_at: input.expires_at,
          created_at: nowIso(),
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return { ...toToken(row), token };
    },

    /** Every token, oldest first, without secrets. */
    async list(): Promise<ApiToken[]> {
      const rows = await db
        .selectFrom('api_tokens')
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      return rows.map(toToken);
    },

    /** Deletes a token; false when there was none with that id. */
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('api_tokens').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    /** The token whose secret has this hex SHA-256, as the token checker needs it. */
    findByHash(tokenHash: string): Promise<StoredToken | undefined> {
      return db
        .selectFrom('api_tokens')
        .select(['id', 'token_hash', 'scope', 'expires_at'])
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
    },

    /** The name of the token with this id (the author of what it writes), or null when it is gone. */
    async nameOf(id: string): Promise<string | null> {
      const row = await db.selectFrom('api_tokens').select('name').where('id', '=', id).executeTakeFirst();
      return row?.name ?? null;
    },

    /** Whether the token with this id still exists and has not expired: the grant of the file URLs it was handed. */
    async isLive(id: string): Promise<boolean> {
      const row = await db
        .selectFrom('api_tokens')
        .select('expires_at')
        .where('id', '=', id)
        .executeTakeFirst();
      return (
        row !== undefined && (row.expires_at === null || new Date(row.expires_at).getTime() > Date.now())
      );
    },
  };
}
