import { Server, type DataStore } from '@tus/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenChecker } from '../http/auth.ts';
import { installApiFamily } from '../http/api-family.ts';
import { COMMON_SECURITY_HEADERS, formatCsp, INERT_CSP } from '../http/security-headers.ts';
import type { AppLogger } from '../logger.ts';
import { scheduleUploadSweep } from './sweep-uploads.ts';

/** Where the tus endpoint is mounted; upload URLs are `/api/uploads/<upload_id>`. */
export const UPLOADS_PREFIX = '/api/uploads';

/** What the resumable upload endpoint needs from the app. */
export interface UploadRoutesOptions {
  /** Where uploads grow (see tus-store.ts). */
  store: DataStore;
  checkToken: TokenChecker;
  /** Largest upload in bytes, announced to clients as `Tus-Max-Size`. */
  maxUploadBytes: number;
  /** Uploads untouched this long are swept. */
  uploadExpiryMs: number;
  logger: AppLogger;
}

// The tus protocol's own methods; GET (download of a partial upload) is not offered.
const TUS_METHODS = ['POST', 'HEAD', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const INERT_HEADERS = { ...COMMON_SECURITY_HEADERS, 'content-security-policy': formatCsp(INERT_CSP) };

/**
 * Resumable uploads (the tus 1.0 protocol with creation, creation-with-upload, creation-defer-length and
 * termination), behind the same token as the catalog. A finished upload becomes a model through
 * `POST /api/models` with `{"upload_id"}`. Bodies stream from the socket to the store, never held in memory.
 */
export const uploadRoutes: FastifyPluginAsync<UploadRoutesOptions> = async (app, options) => {
  installApiFamily(app, {
    checkToken: options.checkToken,
    errorBody: (_status, error) => ({ success: false, error }),
    internalMessage: 'Internal server error',
    notFoundMessage: 'Not found',
  });
  // tus reads the request body itself, chunk by chunk; Fastify must leave it on the socket whatever its type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const tus = new Server({
    path: UPLOADS_PREFIX,
    datastore: options.store,
    maxSize: options.maxUploadBytes,
    // A relative Location works behind any proxy and whatever PUBLIC_BASE_URL says.
    relativeLocation: true,
    // The API is same-origin only, like the rest of /api/: no CORS headers.
    allowedOrigins: () => false,
  });

  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.hijack();
    for (const [name, value] of Object.entries(INERT_HEADERS)) reply.raw.setHeader(name, value);
    try {
      await tus.handle(request.raw, reply.raw);
    } catch (error) {
      // tus answers its own errors; anything else is a fault, and the reply is no longer Fastify's to send.
      request.log.error({ err: error }, 'resumable upload request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { connection: 'close' }).end();
      else reply.raw.destroy();
    }
  };
  for (const url of ['/', '/:id']) {
    app.route({ method: [...TUS_METHODS], url, schema: { hide: true }, handler: handle });
  }

  const stopSweep = scheduleUploadSweep(options.store, options.uploadExpiryMs, options.logger);
  app.addHook('onClose', async () => stopSweep());
};
