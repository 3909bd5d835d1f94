import { hash, timingSafeEqual } from 'node:crypto';
import { sameDigest, SCOPED_TOKEN_PREFIX, secretDigest } from './secrets.ts';

/** What a token may do: `admin` is the configured API_TOKEN; `read` and `write` are scoped tokens. */
export type TokenScope = 'admin' | 'write' | 'read';

/** Outcome of checking a request's `X-API-Token` header: the token's scope, or why it was refused. */
export type TokenCheck = TokenScope | 'missing' | 'invalid';

/**
 * Checks the `X-API-Token` value of a request: at once for the admin token and refusals, through a promise only
 * when a scoped token has to be looked up (every API request pays this check, and a promise per request is measurable).
 * `onScoped` hears the id of an admitted scoped token, so what the request hands out can be bound to it.
 */
export type TokenChecker = (
  presented: string | string[] | undefined,
  onScoped?: (tokenId: string) => void,
) => TokenCheck | Promise<TokenCheck>;

/** A stored scoped token, as the checker needs it. */
export interface StoredToken {
  id: string;
  token_hash: string;
  scope: string;
  expires_at: Date | string | null;
}

/** Finds a scoped token by the hex SHA-256 of its secret. */
export type FindStoredToken = (tokenHash: string) => Promise<StoredToken | undefined>;

/** The header every `/api/` request carries. */
export const TOKEN_HEADER = 'x-api-token';

/**
 * Builds a checker that accepts the admin token (compared in constant time, in memory) or a scoped token that
 * exists, is not expired and whose stored digest matches in constant time.
 */
export function createTokenChecker(adminToken: string, findToken?: FindStoredToken): TokenChecker {
  // Comparing fixed-length digests keeps the time independent of both the length and the content of the guess.
  const adminDigest = digest(adminToken);
  const checkStored = async (
    value: string,
    find: FindStoredToken,
    onScoped: ((tokenId: string) => void) | undefined,
  ): Promise<TokenCheck> => {
    const presentedHash = secretDigest(value);
    const stored = await find(presentedHash);
    if (!stored || !sameDigest(stored.token_hash, presentedHash)) return 'invalid';
    if (stored.expires_at !== null && new Date(stored.expires_at).getTime() <= Date.now()) return 'invalid';
    onScoped?.(stored.id);
    return stored.scope === 'write' ? 'write' : 'read';
  };
  return (presented, onScoped) => {
    if (presented === undefined || presented === '') return 'missing';
    const value = Array.isArray(presented) ? presented[0]! : presented;
    if (timingSafeEqual(digest(value), adminDigest)) return 'admin';
    if (!findToken || !value.startsWith(SCOPED_TOKEN_PREFIX)) return 'invalid';
    return checkStored(value, findToken, onScoped);
  };
}

// The one-shot hash: a third of the cost of a Hash object on a token-sized input.
function digest(value: string): Buffer {
  return hash('sha256', value, 'buffer');
}
