import type { FastifyInstance, FastifyReply } from 'fastify';
import { classifyError } from '../http/classify-error.ts';

/** Sends `{success:false,error}`, the catalog's error shape, never to be cached. */
export function sendPublicError(reply: FastifyReply, statusCode: number, message: string): FastifyReply {
  return reply
    .code(statusCode)
    .type('application/json; charset=utf-8')
    .header('cache-control', 'no-store')
    .send({ success: false, error: message });
}

/**
 * Error handler and 404 of a public (token-free) plugin: failures answer in the catalog's error shape, 5xx
 * details only in the log.
 */
export function installPublicErrors(app: FastifyInstance, notFoundMessage: string): void {
  app.setErrorHandler((error, request, reply) => {
    const { statusCode, message, expected } = classifyError(error, 'Internal server error');
    if (!expected) request.log.error({ err: error }, 'request failed');
    return sendPublicError(reply, statusCode, message);
  });
  app.setNotFoundHandler((_request, reply) => sendPublicError(reply, 404, notFoundMessage));
}
