import type { FastifyInstance } from 'fastify';
import type { BlobStore } from '../../storage/blob-store.ts';
import { FILES_ROUTE_PREFIX } from '../../storage/files-route.ts';
import {
  decideFileAccess,
  privateCacheControl,
  refuseFile,
  REVOKED_WITHIN_SECONDS,
  type FileAccessOptions,
} from './file-access.ts';
import { contentDisposition, storedFileHeaders } from './serve-files.ts';

/**
 * How long the presigned URL a granted request is redirected to lives, and how long the redirect may be reused: a
 * revocable grant's redirect, reused and then followed, ends within REVOKED_WITHIN_SECONDS of a revocation; a
 * signed URL about to expire leads to a presigned URL that does not outlive it by more than a minute.
 */
export function presignedLife(
  decision: { reuseSeconds: number; revocable: boolean },
  urlExpiresSeconds: number,
): { presignedSeconds: number; reuseSeconds: number } {
  const presignedSeconds = decision.revocable
    ? REVOKED_WITHIN_SECONDS - decision.reuseSeconds
    : decision.reuseSeconds > 0
      ? Math.min(urlExpiresSeconds, Math.max(60, decision.reuseSeconds))
      : urlExpiresSeconds;
  return {
    presignedSeconds,
    reuseSeconds: Math.min(decision.reuseSeconds, Math.floor(presignedSeconds / 2)),
  };
}

/** Options of {@link registerFileRedirects}. */
export interface FileRedirectOptions {
  /** Life of each presigned URL (`S3_URL_EXPIRES_SECONDS`). */
  urlExpiresSeconds: number;
  /** Who may be redirected: a signed URL or an API token, as with local serving. */
  access: FileAccessOptions;
}

/**
 * Answers `/files/<key>` with a 302 to a fresh presigned GET of the object, for stores the app does not serve
 * itself (S3), to the same requests local serving grants (a valid signature or an API token); others get the
 * same 404. Handed-out URLs stay `/files/…` ones signed by the service while the bytes never pass through the
 * API. The presigned GET carries what local serving sends: the allow-listed type, and originals (and any type a
 * browser could show) as attachments. A browser may reuse the redirect for half the presigned URL's life and
 * never past the signature's, so a cached redirect always leads to a URL with time left.
 */
export function registerFileRedirects(
  app: FastifyInstance,
  blobs: Required<Pick<BlobStore, 'signedUrl'>>,
  options: FileRedirectOptions,
): void {
  app.get(`${FILES_ROUTE_PREFIX}*`, { schema: { hide: true } }, async (request, reply) => {
    const key = (request.params as { '*'?: string })['*'] ?? '';
    const decision = await decideFileAccess(request, key, options.access);
    if (!decision.granted) return refuseFile(reply, decision);
    // No object has an empty or dot segment, and a URL would normalise one away after signing.
    if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
      return reply.callNotFound();
    const { presignedSeconds, reuseSeconds } = presignedLife(decision, options.urlExpiresSeconds);
    const { contentType, attachment } = storedFileHeaders(key);
    const url = await blobs.signedUrl(
      key,
      {
        contentType,
        contentDisposition: attachment ? contentDisposition(key) : undefined,
        // The bytes behind a name never change, but the answer needed a grant: private, no longer than it lasts.
        cacheControl: privateCacheControl(presignedSeconds),
      },
      presignedSeconds,
    );
    // Like local serving, any page may fetch stored files; the bucket's CORS rules govern the second hop.
    return reply
      .header('cache-control', privateCacheControl(reuseSeconds))
      .header('access-control-allow-origin', '*')
      .redirect(url, 302);
  });
}
