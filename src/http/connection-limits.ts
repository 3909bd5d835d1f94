import http, { type IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';

/** How long a client may take over each part of a request before its connection is closed. */
export interface ConnectionLimits {
  /** Headers must have arrived this long after the connection started sending them. */
  headersTimeoutMs: number;
  /**
   * A JSON (or other non-upload) body must have arrived in full within this time; an upload body (multipart, or
   * a resumable upload's chunk) must bring at least {@link MIN_UPLOAD_PROGRESS_BYTES} in every such period.
   */
  bodyTimeoutMs: number;
  /** A connection on which nothing moves either way for this long is closed. */
  idleTimeoutMs: number;
}

/** An upload slower than this per body period is taken for a client holding a socket, not sending a file. */
export const MIN_UPLOAD_PROGRESS_BYTES = 64 * 1024;

/** Bodies that carry a file (a form, or a resumable upload's chunk), held to the progress rule, not the deadline. */
const UPLOAD_BODY = /^(multipart\/|application\/offset\+octet-stream)/i;

/** An idle kept-alive connection waits this long for its next request (Node's own default). */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/** Node looks for late headers on this period; small enough that the limit holds within a second. */
const MAX_CHECK_INTERVAL_MS = 1_000;

/** A Fastify `serverFactory` creating the HTTP server with the limits on its sockets. */
export function limitedServerFactory(limits: ConnectionLimits): FastifyServerFactory {
  return (handler) => {
    const server = http.createServer(
      {
        headersTimeout: limits.headersTimeoutMs,
        // Node's request timeout covers the whole body, which would cut large uploads; bodies are watched below.
        requestTimeout: 0,
        connectionsCheckingInterval: Math.min(MAX_CHECK_INTERVAL_MS, limits.headersTimeoutMs),
      },
      handler,
    );
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    server.setTimeout(limits.idleTimeoutMs);
    return server;
  };
}

/**
 * Closes connections whose request body a client sends too slowly, and every connection answered before its
 * request body arrived (a 401, 413, 404 or 400 on a body the route never read): without that, Node would keep
 * reading and discarding the rest of the body for as long as the client trickled it, one socket per client.
 */
export function registerConnectionLimits(app: FastifyInstance, limits: ConnectionLimits): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (!hasBody(raw) || raw.complete) return done();
    const upload = UPLOAD_BODY.test(raw.headers['content-type'] ?? '');
    const socket = raw.socket;
    let bytesBefore = socket.bytesRead;
    const timer = setInterval(() => {
      if (raw.complete) return clearInterval(timer);
      const bytesNow = socket.bytesRead;
      if (upload && bytesNow - bytesBefore >= MIN_UPLOAD_PROGRESS_BYTES) {
        bytesBefore = bytesNow;
        return;
      }
      clearInterval(timer);
      request.log.info({ upload, bytesRead: bytesNow }, 'request body too slow: connection closed');
      // Answered the way Node answers its own request timeout; the pending handler then sees the body abort.
      if (!reply.raw.headersSent) {
        socket.end('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      }
      socket.destroySoon();
    }, limits.bodyTimeoutMs);
    timer.unref();
    reply.raw.once('close', () => clearInterval(timer));
    done();
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (hasBody(request.raw) && !request.raw.complete) reply.header('connection', 'close');
    done(null, payload);
  });
}

function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
