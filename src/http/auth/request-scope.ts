import type { FastifyRequest } from 'fastify';
import type { TokenScope } from './token-checker.ts';

// Kept beside the request rather than decorated on it: every API family's plugin sets it, and a decoration would
// have to be declared on each of their encapsulated instances.
const scopes = new WeakMap<FastifyRequest, TokenScope>();

/** Notes the scope of the token that was admitted for `request`. */
export function rememberScope(request: FastifyRequest, scope: TokenScope): void {
  scopes.set(request, scope);
}

/** The scope of the request's admitted token; undefined for a request no token check ran on. */
export function scopeOf(request: FastifyRequest): TokenScope | undefined {
  return scopes.get(request);
}

const grants = new WeakMap<FastifyRequest, string>();

/** Notes the id of the scoped token admitted for `request`, the grant its file URLs are bound to. */
export function rememberGrant(request: FastifyRequest, tokenId: string): void {
  grants.set(request, tokenId);
}

/** The id of the request's admitted scoped token; undefined for the admin token or no token check. */
export function grantOf(request: FastifyRequest): string | undefined {
  return grants.get(request);
}
