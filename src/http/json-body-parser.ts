import type { FastifyInstance, FastifyRequest } from 'fastify';
import { noteJsonText } from './refuse-nul.ts';
import { parseJsonYielding, YIELDING_PARSE_DEFAULTS } from './parse-json-yielding.ts';

/**
 * Parses JSON bodies like Fastify's own parser (same grammar, prototype-poisoning keys refused), with two
 * differences. An empty body counts as no body: many clients send `Content-Type: application/json` on every
 * request, including a bare DELETE; routes that need a body still refuse the missing one through their schema
 * (`body must be a JSON object`). And the parse yields to the event loop and refuses deep nesting early, so a
 * 32 MiB bulk body cannot hold other clients up (see parse-json-yielding.ts). Fastify's text/plain parser goes:
 * no route takes text, and a JSON body sent as text is a wrong content type (415), not a wrong body.
 */
export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    async (request: FastifyRequest, body: string | Buffer) => {
      const text = String(body);
      // Looks for the first non-blank character instead of copying the whole body with trim().
      if (!/\S/.test(text)) return undefined;
      noteJsonText(request, text);
      return parseJsonYielding(text, YIELDING_PARSE_DEFAULTS);
    },
  );
}
