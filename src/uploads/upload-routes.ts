import { randomBytes } from 'node:crypto';
import { Server, type DataStore } from '@tus/server';
import { ERRORS, type Locker } from '@tus/utils';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TokenChecker } from '../http/auth/token-checker.ts';
import { installApiFamily } from '../http/api-family.ts';
import { CATALOG_FAMILY } from '../http/catalog-family.ts';
import { COMMON_SECURITY_HEADERS, formatCsp, INERT_CSP } from '../http/security-headers.ts';
import type { AppLogger } from '../logger.ts';
import { isRedisOutage } from '../http/classify-error.ts';
import { QUEUE_UNAVAILABLE } from '../jobs/queue-unavailable.ts';
import { STORAGE_UNAVAILABLE } from '../storage/storage-unavailable.ts';
import type { RefusalsUndone } from './refused-patch-undo.ts';
import { S3UploadStore } from './s3-upload-store.ts';
import { scheduleUploadSweep } from './sweep-uploads.ts';

/** Where the tus endpoint is mounted; upload URLs are `/api/uploads/<upload_id>`. */
export const UPLOADS_PREFIX = '/api/uploads';

/** What the resumable upload endpoint needs from the app. */
export interface UploadRoutesOptions {
  /** Where uploads grow (see tus-store.ts). */
  store: DataStore;
  /** Waits until what refused PATCHes changed is taken back, so their answer comes after it. */
  refusalsUndone: RefusalsUndone;
  /** The lock every API process shares; tus's per-process lock when undefined. */
  locker: Locker | undefined;
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
    ...CATALOG_FAMILY,
  });
  // tus reads the request body itself, chunk by chunk; Fastify must leave it on the socket whatever its type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  const store = options.store;
  const tus = new Server({
    path: UPLOADS_PREFIX,
    datastore: store,
    ...(options.locker ? { locker: options.locker } : {}),
    ...(store instanceof S3UploadStore ? prefixedIds(store.keyPrefix) : {}),
    onResponseError: async (_request, error) => {
      // tus answers its protocol errors itself; any other is a fault whose message must not reach the client.
      if ('status_code' in error) {
        // A client that asks where its upload stands after a 413 must find it as it was before the PATCH.
        if (error.status_code === 413) await undoneOrLogged(options);
        return undefined;
      }
      options.logger.error({ err: error }, 'resumable upload request failed');
      return outageAnswer(error, store);
    },
    maxSize: options.maxUploadBytes,
    onIncomingRequest: async (request) => refuseOverlongPatch(request),
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

/** Waits for the undoing of refused PATCHes; a failure is logged, and the refusal still answered. */
async function undoneOrLogged(options: UploadRoutesOptions): Promise<void> {
  try {
    await options.refusalsUndone();
  } catch (error) {
    options.logger.error({ err: error }, 'could not take back what a refused upload PATCH changed');
  }
}

/**
 * Refuses (413) a PATCH that declares its upload's length together with more bytes than that length leaves room
 * for. tus would find it out only after saving the declared length, so the refused request would still have
 * changed the upload; checked here, before the upload is touched, the upload stays as it was.
 */
function refuseOverlongPatch(request: Request): void {
  if (request.method !== 'PATCH') return;
  const declared = wholeNumber(request.headers.get('upload-length'));
  const offset = wholeNumber(request.headers.get('upload-offset'));
  const length = wholeNumber(request.headers.get('content-length'));
  if (declared === undefined || offset === undefined || length === undefined) return;
  if (offset + length > declared) throw ERRORS.ERR_SIZE_EXCEEDED;
}

/** A header's non-negative integer value, or undefined when absent or not one (tus judges those itself). */
function wholeNumber(value: string | null): number | undefined {
  return value !== null && /^\d{1,15}$/.test(value) ? Number(value) : undefined;
}

/**
 * The plain-text answer to a fault: 503 naming the part that is away (Redis holds the shared locks and metadata,
 * the bucket the bytes), or 500 for anything else.
 */
function outageAnswer(error: unknown, store: DataStore): { status_code: number; body: string } {
  if (isRedisOutage(error)) return { status_code: 503, body: `${QUEUE_UNAVAILABLE}\n` };
  if (store instanceof S3UploadStore) return { status_code: 503, body: `${STORAGE_UNAVAILABLE}\n` };
  return { status_code: 500, body: 'Internal server error\n' };
}

/**
 * Upload ids that are object keys under the installation's prefix (`@tus/s3-store` names every object by the
 * id), while clients see only the last segment: `/api/uploads/<hex>` stands for `<prefix>uploads/<hex>`.
 */
function prefixedIds(keyPrefix: string) {
  return {
    namingFunction: () => keyPrefix + randomBytes(16).toString('hex'),
    generateUrl: (_request: unknown, { path, id }: { path: string; id: string }) =>
      `${path}/${id.slice(keyPrefix.length)}`,
    getFileIdFromRequest: (_request: unknown, lastPath?: string) =>
      lastPath && /^[A-Za-z0-9_-]+$/.test(lastPath) ? keyPrefix + lastPath : undefined,
  };
}
