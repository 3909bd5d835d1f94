import type { FastifyInstance } from 'fastify';

/**
 * Parses JSON bodies as Fastify does, except that an empty body counts as no body: many clients send
 * `Content-Type: application/json` on every request, including a bare DELETE. Routes that need a body still
 * refuse the missing one through their schema (`body must be a JSON object`).
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    // The default parser answers through `done`; its return value carries nothing.
    void parseJson(request, text, done);
  });
}
