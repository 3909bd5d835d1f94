import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Log levels at which a `debug` line is written. */
const LEVELS_WRITING_DEBUG = new Set(['trace', 'debug']);

/** The message an API request's error answer gave, kept for its access-log line. */
const rejections = new WeakMap<FastifyRequest, string>();

/** Records the message of a request's error answer, so its one access-log line carries it instead of a line of its own. */
export function noteRejection(request: FastifyRequest, reason: string): void {
  rejections.set(request, reason);
}

/**
 * Fastify's request logging with one access-log line per request instead of two: nothing on arrival, and on
 * completion (404s included) one `request completed` line at `debug` with method, URL, status, time in ms and, for
 * a refused request, the reason it was given (errors still at `error`). At the default level, `info`, a service
 * writes nothing per request that went well; `LOG_LEVEL=debug` shows every request.
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
    // A service at `info` or above builds nothing for the line it would not write.
    if (!error && !LEVELS_WRITING_DEBUG.has(reply.log.level)) return;
    const line = {
      method: request.method,
      url: withoutToken(request.url),
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      reason: rejections.get(request),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.debug(line, 'request completed');
  }
}

// A parameter anywhere in the URL: after `?`, `&` or `;` (a path parameter), up to the next delimiter.
const PARAMETER = /([?&;])([^=&;#?]*)=([^&;#]*)/g;

/**
 * The URL with the value of every parameter whose name is or holds `token` (the event stream's `?token=`)
 * replaced, so logs hold no secrets. Names are compared as the query parser reads them: percent-decoded (so
 * `?tok%65n=` is caught; repeatedly, for a name encoded twice), `+` as a space, in any case; `;` counts as a
 * delimiter too, as some clients and proxies treat it.
 */
export function withoutToken(url: string): string {
  return url.replace(PARAMETER, (whole, lead: string, name: string) =>
    /token/i.test(decodedName(name)) ? `${lead}${name}=[redacted]` : whole,
  );
}

/** A parameter name percent-decoded until it no longer changes (at most a few times). */
function decodedName(name: string): string {
  let decoded = name.replace(/\+/g, ' ');
  for (let round = 0; round < 4; round++) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      // A malformed escape: decode what can be, byte by byte.
      next = decoded.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) =>
        String.fromCharCode(parseInt(hex, 16)),
      );
    }
    if (next === decoded) break;
    decoded = next;
  }
  return decoded;
}
