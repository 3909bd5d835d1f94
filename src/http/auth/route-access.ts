import type { TokenScope } from './token-checker.ts';

/** Prefix of the token management routes, which only the admin token reaches. */
export const TOKEN_ROUTES_PREFIX = '/api/tokens';

/** The one token route every token may read: what the caller's own token may do. */
export const CURRENT_TOKEN_ROUTE = `${TOKEN_ROUTES_PREFIX}/current`;

/** Message of a 403 for a read token on a route that changes something. */
export const READ_ONLY_MESSAGE = 'token is read-only';
/** Message of a 403 for a scoped token on token management. */
export const ADMIN_ONLY_MESSAGE = 'token management needs the admin token';

/** Message of a 403 for a read token listing share links: each link's URL is its secret, a write-level capability. */
export const SHARES_NEED_WRITE_MESSAGE = 'share links need a write token';

// Reads that hand out a capability a read token must not get: the share links' URLs carry their secrets.
const WRITE_LEVEL_READS = new Map([['/api/models/:id/shares', SHARES_NEED_WRITE_MESSAGE]]);

// A POST that only reads: the bulk material lookup takes its ids in a body because they do not fit a URL.
const READING_POSTS = new Set(['/api/v1/groups/materials']);

/**
 * Why a token of `scope` may not call the route `method url` (its pattern, e.g. `/api/models/:id`), or
 * undefined when it may. Unknown routes (no pattern) pass, so they reach their family's 404.
 */
export function accessDenied(scope: TokenScope, method: string, url: string | undefined): string | undefined {
  if (scope === 'admin' || url === undefined) return undefined;
  if (url === CURRENT_TOKEN_ROUTE && method === 'GET') return undefined;
  if (url === TOKEN_ROUTES_PREFIX || url.startsWith(`${TOKEN_ROUTES_PREFIX}/`)) return ADMIN_ONLY_MESSAGE;
  if (scope === 'write') return undefined;
  const reads = method === 'GET' || method === 'HEAD' || (method === 'POST' && READING_POSTS.has(url));
  if (!reads) return READ_ONLY_MESSAGE;
  return WRITE_LEVEL_READS.get(url);
}
