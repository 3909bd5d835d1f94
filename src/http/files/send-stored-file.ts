import type { FastifyReply } from 'fastify';
import type { BlobStore, SignedResponseHeaders } from '../../storage/blob-store.ts';

/** How {@link sendStoredFile} answers. */
export interface StoredFileAnswer {
  /** Headers of the file itself, sent by the app or by the store through the presigned URL. */
  headers: SignedResponseHeaders;
  /** Cache-Control of the answer (the redirect, with a store that signs URLs). */
  cacheControl: string;
  /** Life of the presigned URL; the store's configured life when absent. */
  expiresInSeconds?: number;
}

/**
 * Answers with a stored file without relaying it when the store can sign URLs (S3): a 302 to a presigned GET
 * that carries the file's headers. A local store's file is streamed by the app with the same headers.
 */
export async function sendStoredFile(
  reply: FastifyReply,
  blobs: BlobStore,
  key: string,
  answer: StoredFileAnswer,
): Promise<FastifyReply> {
  reply.header('cache-control', answer.cacheControl);
  if (blobs.signedUrl)
    return reply.redirect(await blobs.signedUrl(key, answer.headers, answer.expiresInSeconds));
  const { contentType, contentDisposition } = answer.headers;
  if (contentDisposition) reply.header('content-disposition', contentDisposition);
  return reply.type(contentType).send(await blobs.read(key));
}

/** The OpenAPI answer of a route that redirects to the file when the store signs URLs (S3). */
export const STORED_FILE_REDIRECT = {
  description: 'With S3 storage: a redirect to a presigned GET of the file, in `Location`.',
  type: 'null',
} as const;
