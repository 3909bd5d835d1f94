import type { FastifyInstance, FastifyReply } from 'fastify';
import { TOKEN_HEADER, type TokenCheck } from './auth.ts';
import { classifyError } from './classify-error.ts';

/** How one API family (material service, catalog) shapes its errors. */
export interface ApiFamilyOptions {
  /** Compares the request's token with the service's. */
  checkToken: (presented: string | string[] | undefined) => TokenCheck;
  /** The family's error body for a status and message. */
  errorBody: (statusCode: number, message: string) => object;
  /** Message of a 500, whose details stay in the log. */
  internalMessage: string;
  /** Message of an unknown route under the family's prefix. */
  notFoundMessage: string;
}

const TOKEN_MESSAGES: Record<Exclude<TokenCheck, 'ok'>, string> = {
  missing: 'missing API token',
  invalid: 'invalid API token',
};

/**
 * Gives the encapsulated plugin of one API family its token check, its error handler and its 404, so every
 * failure under the prefix answers in that family's envelope.
 */
export function installApiFamily(app: FastifyInstance, options: ApiFamilyOptions): void {
  const send = (reply: FastifyReply, statusCode: number, message: string) =>
    reply
      .code(statusCode)
      .type('application/json; charset=utf-8')
      .send(options.errorBody(statusCode, message));

  app.addHook('onRequest', async (request, reply) => {
    const result = options.checkToken(request.headers[TOKEN_HEADER]);
    if (result !== 'ok') return send(reply, 401, TOKEN_MESSAGES[result]);
  });

  app.setErrorHandler((error, request, reply) => {
    const { statusCode, message, expected } = classifyError(error, options.internalMessage);
    if (expected) request.log.info({ statusCode, reason: message }, 'request rejected');
    else request.log.error({ err: error }, 'request failed');
    return send(reply, statusCode, message);
  });

  app.setNotFoundHandler((_request, reply) => send(reply, 404, options.notFoundMessage));
}
