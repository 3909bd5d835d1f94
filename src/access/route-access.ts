import type { TokenScope } from '../http/auth.ts';

/** Prefix of the token management routes, which only the admin token reaches. */
export const TOKEN_ROUTES_PREFIX = '/api/tokens';

/** Message of a 403 for a read token on a route that changes something. */
export const READ_ONLY_MESSAGE = 'token is read-only';
/** Message of a 403 for a scoped token on token management. */
export const ADMIN_ONLY_MESSAGE = 'token management needs the admin token';

// A POST that only reads: the bulk material lookup takes its ids in a body because they do not fit a URL.
const READING_POSTS = new Set(['/api/v1/groups/materials']);

/**
 * Why a token of `scope` may not call the route `method url` (its pattern, e.g. `/api/models/:id`), or
 * undefined when it may. Unknown routes (no pattern) pass, so they reach their family's 404.
 */
export function accessDenied(scope: TokenScope, method: string, url: string | undefined): string | undefined {
  if (scope === 'admin' || url === undefined) return undefined;
  if (url === TOKEN_ROUTES_PREFIX || url.startsWith(`${TOKEN_ROUTES_PREFIX}/`)) return ADMIN_ONLY_MESSAGE;
  if (scope === 'write') return undefined;
  const reads = method === 'GET' || method === 'HEAD' || (method === 'POST' && READING_POSTS.has(url));
  return reads ? undefined : READ_ONLY_MESSAGE;
}
