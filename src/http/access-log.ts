import type { FastifyInstance } from 'fastify';
import type { AppLogger } from '../logger.ts';

/**
 * One access-log line per request at `info` (method, URL, status, time), in place of Fastify's two (one on arrival,
 * one on completion). At `warn` and above no hook is added at all, so a quiet service pays nothing per request.
 * Needs the app built with `disableRequestLogging: true`.
 */
export function registerAccessLog(app: FastifyInstance, logger: AppLogger): void {
  if (!logger.isLevelEnabled('info')) return;
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        responseTime: Math.round(reply.elapsedTime * 10) / 10,
      },
      'request completed',
    );
    done();
  });
}
