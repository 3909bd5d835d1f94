import type { FastifyInstance } from 'fastify';

/** The body of an unknown path under `/api/` that no API family owns: the catalog's envelope, as `/api/models`. */
export const UNKNOWN_API_PATH = { success: false, error: 'Not found' } as const;

/**
 * Answers unknown paths outside every API family's prefix: under `/api` in the catalog envelope (the families
 * answer their own unknown paths in theirs), elsewhere with Fastify's usual 404 body.
 */
export function registerApiNotFound(app: FastifyInstance): void {
  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?', 1)[0]!;
    if (pathname === '/api' || pathname.startsWith('/api/')) {
      return reply.code(404).type('application/json; charset=utf-8').send(UNKNOWN_API_PATH);
    }
    return reply.code(404).send({
      message: `Route ${request.method}:${request.url} not found`,
      error: 'Not Found',
      statusCode: 404,
    });
  });
}
