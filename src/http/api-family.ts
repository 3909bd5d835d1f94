import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rememberGrant, rememberScope } from './auth/request-scope.ts';
import { accessDenied } from './auth/route-access.ts';
import { noteRejection } from './access-log.ts';
import { TOKEN_HEADER, type TokenCheck, type TokenChecker, type TokenScope } from './auth/token-checker.ts';
import { classifyError } from './classify-error.ts';

/** How one API family (material service, catalog) shapes its errors. */
export interface ApiFamilyOptions {
  /** Tells the scope of the request's token, or why it is refused. */
  checkToken: TokenChecker;
  /** The family's error body for a status and message. */
  errorBody: (statusCode: number, message: string) => object;
  /** Message of a 500, whose details stay in the log. */
  internalMessage: string;
  /** Message of an unknown route under the family's prefix; omitted by a plugin adding routes to a family whose 404 is set elsewhere. */
  notFoundMessage?: string;
  /** Where the request's token is read; the `X-API-Token` header unless a family says otherwise. */
  presentedToken?: (request: FastifyRequest) => string | string[] | undefined;
}

const TOKEN_MESSAGES: Record<Exclude<TokenCheck, TokenScope>, string> = {
  missing: 'missing API token',
  invalid: 'invalid API token',
};

/**
 * Gives the encapsulated plugin of one API family its token check, its error handler and its 404, so every
 * failure under the prefix answers in that family's envelope.
 */
export function installApiFamily(app: FastifyInstance, options: ApiFamilyOptions): void {
  const send = (reply: FastifyReply, statusCode: number, message: string) => {
    noteRejection(reply.request, message);
    return reply
      .code(statusCode)
      .type('application/json; charset=utf-8')
      .send(options.errorBody(statusCode, message));
  };

  // A callback hook: the admin token is checked at once, and only a scoped token's lookup waits on a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const admit = (result: TokenCheck) => {
      if (result === 'missing' || result === 'invalid') return void send(reply, 401, TOKEN_MESSAGES[result]);
      const denied = accessDenied(result, request.method, request.routeOptions.url);
      if (denied) return void send(reply, 403, denied);
      rememberScope(request, result);
      done();
    };
    const presented = options.presentedToken?.(request) ?? request.headers[TOKEN_HEADER];
    const result = options.checkToken(presented, (tokenId) => rememberGrant(request, tokenId));
    if (typeof result === 'string') admit(result);
    else result.then(admit, done);
  });

  app.setErrorHandler((error, request, reply) => {
    const { statusCode, message, expected } = classifyError(error, options.internalMessage);
    if (!expected) request.log.error({ err: error }, 'request failed');
    // A database outage is brief; clients that honour Retry-After come back when it may be over.
    if (statusCode === 503) reply.header('retry-after', '5');
    return send(reply, statusCode, message);
  });

  const { notFoundMessage } = options;
  if (notFoundMessage !== undefined) {
    app.setNotFoundHandler((_request, reply) => send(reply, 404, notFoundMessage));
  }
}
