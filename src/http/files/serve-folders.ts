import type { FastifyInstance } from 'fastify';
import type { BlobStore } from '../../storage/blob-store.ts';
import {
  decideFolderAccess,
  privateCacheControl,
  refuseFile,
  type FileAccessOptions,
} from './file-access.ts';
import { FOLDERS_ROUTE_PREFIX } from './file-url-signer.ts';
import { presignedLife } from './redirect-files.ts';
import { contentDisposition, storedFileHeaders } from './serve-files.ts';
import { formatCsp, INERT_CSP } from '../security-headers.ts';

/** Options of {@link registerFolderFiles}. */
export interface FolderFilesOptions {
  /** Who may fetch: a valid folder grant (handed out by the API), as `/files/` checks a signed URL. */
  access: FileAccessOptions;
  /** Life of each presigned URL, for a store that signs them (`S3_URL_EXPIRES_SECONDS`). */
  urlExpiresSeconds: number;
}

const FOLDER_CSP = formatCsp(INERT_CSP);

/**
 * Answers `/folders/<grant>/<key>`: a stored file reached through a grant of its whole folder, which the API hands
 * out for files that refer to their neighbours by relative URIs (a 3D Tiles `tileset.json` and its `tiles/`). The
 * grant rides in the path, so a relative URI resolved against the URL keeps it. A granted file is streamed by the
 * app from a local store, or a 302 to a presigned GET from S3, with the headers and caching `/files/` gives; any
 * other request is the same 404 (503 while a grant's liveness cannot be checked).
 */
export function registerFolderFiles(
  app: FastifyInstance,
  blobs: BlobStore,
  options: FolderFilesOptions,
): void {
  app.get(`${FOLDERS_ROUTE_PREFIX}:grant/*`, { schema: { hide: true } }, async (request, reply) => {
    const { grant, '*': key = '' } = request.params as { grant: string; '*'?: string };
    const decision = await decideFolderAccess(grant, key, options.access);
    if (!decision.granted) return refuseFile(reply, decision);
    const { contentType, attachment } = storedFileHeaders(key);
    const disposition = attachment ? contentDisposition(key) : undefined;
    reply
      .header('access-control-allow-origin', '*')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', FOLDER_CSP)
      .header('x-frame-options', 'DENY');
    if (blobs.signedUrl) {
      const { presignedSeconds, reuseSeconds } = presignedLife(decision, options.urlExpiresSeconds);
      const url = await blobs.signedUrl(
        key,
        { contentType, contentDisposition: disposition, cacheControl: privateCacheControl(presignedSeconds) },
        presignedSeconds,
      );
      return reply.header('cache-control', privateCacheControl(reuseSeconds)).redirect(url, 302);
    }
    const info = await blobs.head(key);
    if (!info) return refuseFile(reply, { status: 404, message: 'File not found' });
    if (disposition) reply.header('content-disposition', disposition);
    return reply
      .header('cache-control', privateCacheControl(decision.reuseSeconds))
      .header('content-length', info.size)
      .type(contentType)
      .send(await blobs.read(key));
  });
}
