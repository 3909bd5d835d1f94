import type { FastifyInstance } from 'fastify';

/** Request headers a cross-origin page may send to the API. */
export const CORS_ALLOWED_HEADERS = [
  'X-API-Token',
  'Content-Type',
  'Last-Event-ID',
  'If-None-Match',
  'Idempotency-Key',
];
/** Response headers such a page may read. */
const EXPOSED_HEADERS = ['ETag', 'Retry-After', 'Content-Disposition', 'Location', 'Idempotent-Replayed'];
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
// Browsers cache a preflight this long (seconds), then ask again.
const PREFLIGHT_MAX_AGE = '600';

/**
 * Lets pages on `origins` (`CORS_ORIGINS`; `*` for any) call `/api/`. Preflights from those origins are answered
 * here, before the token check, because browsers never send credentials with them; other origins get no CORS
 * headers and the browser keeps the answer from the page. The API is authorised by a header, not cookies, so
 * allowing an origin lends it nothing a page could not already do with the token.
 */
export function registerCors(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return;
  const any = origins.includes('*');
  const allowed = new Set(origins);
  app.addHook('onRequest', async (request, reply) => {
    const origin = request.headers.origin;
    if (!origin || !request.url.startsWith('/api/') || !(any || allowed.has(origin))) return;
    reply.header('access-control-allow-origin', any ? '*' : origin);
    if (!any) reply.header('vary', 'Origin');
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
      return reply
        .code(204)
        .header('access-control-allow-methods', METHODS.join(', '))
        .header('access-control-allow-headers', CORS_ALLOWED_HEADERS.join(', '))
        .header('access-control-max-age', PREFLIGHT_MAX_AGE)
        .send();
    }
    reply.header('access-control-expose-headers', EXPOSED_HEADERS.join(', '));
  });
}
