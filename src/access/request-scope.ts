import type { FastifyRequest } from 'fastify';
import type { TokenScope } from '../http/auth.ts';

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
