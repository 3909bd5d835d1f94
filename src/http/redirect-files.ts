import type { FastifyInstance } from 'fastify';
import type { BlobStore } from '../storage/blob-store.ts';
import { FILES_ROUTE_PREFIX } from '../storage/files-route.ts';
import { contentDisposition, storedFileHeaders } from './serve-files.ts';

/** Options of {@link registerFileRedirects}. */
export interface FileRedirectOptions {
  /** Life of each presigned URL (`S3_URL_EXPIRES_SECONDS`). */
  urlExpiresSeconds: number;
}

/**
 * Answers `/files/<key>` with a 302 to a fresh presigned GET of the object, for stores the app does not serve
 * itself (S3). Handed-out URLs stay the stable `/files/…` ones while the bytes never pass through the API. The
 * presigned GET carries what local serving sends: the allow-listed type, and originals (and any type a browser
 * could show) as attachments. A browser may reuse the redirect for half the URL's life, so a cached redirect
 * always leads to a URL with time left.
 */
export function registerFileRedirects(
  app: FastifyInstance,
  blobs: Required<Pick<BlobStore, 'signedUrl'>>,
  options: FileRedirectOptions,
): void {
  const redirectCache = `private, max-age=${Math.floor(options.urlExpiresSeconds / 2)}`;
  app.get(`${FILES_ROUTE_PREFIX}*`, { schema: { hide: true } }, async (request, reply) => {
    const key = (request.params as { '*'?: string })['*'] ?? '';
    // No object has an empty or dot segment, and a URL would normalise one away after signing.
    if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
      return reply.callNotFound();
    const { contentType, attachment } = storedFileHeaders(key);
    const url = await blobs.signedUrl(key, {
      contentType,
      contentDisposition: attachment ? contentDisposition(key) : undefined,
      // Every stored name changes when its content does, as local serving assumes too.
      cacheControl: 'private, max-age=31536000, immutable',
    });
    // Like local serving, any page may fetch stored files; the bucket's CORS rules govern the second hop.
    return reply
      .header('cache-control', redirectCache)
      .header('access-control-allow-origin', '*')
      .redirect(url, 302);
  });
}
