import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's request logging with one access-log line per request instead of two: nothing on arrival, and on
 * completion (404s included) one `request completed` line at `info` with method, URL, status and time in ms (errors still at
 * `error`). At `warn` and above pino's `info` is a no-op, so a quiet service writes nothing per request.
 */
export class AccessLogController extends LogController {
  override incomingRequest(): void {}

  // The completed line already shows the 404.
  override routeNotFound(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: withoutToken(request.url),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** The URL with the value of a `token` query parameter (the event stream's) replaced, so logs hold no secrets. */
export function withoutToken(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/g, '$1[redacted]');
}
