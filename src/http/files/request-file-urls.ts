import type { FastifyRequest } from 'fastify';
import { grantOf } from '../auth/request-scope.ts';
import type { FileUrlSigner } from './file-url-signer.ts';

/**
 * Turns a blob key into the signed `/files/` URL a client fetches; with `folder` (a prefix of `key` ending in `/`),
 * into a `/folders/` URL whose grant covers the whole folder, so the file's relative references resolve too.
 */
export type UrlFor = (key: string, folder?: string) => string;

/**
 * Signs URLs for the request that asks, under the public base URL (else the request's own); bound to the scoped
 * token that asked, if any, so revoking the token ends its URLs too.
 */
export function requestFileUrls(
  signer: FileUrlSigner,
  publicBaseUrl: string | undefined,
): (request: FastifyRequest) => UrlFor {
  return (request) => {
    const baseUrl = publicBaseUrl ?? `${request.protocol}://${request.host}`;
    return (key, folder) =>
      folder === undefined
        ? signer.sign(key, baseUrl, grantOf(request))
        : signer.signFolder(key, folder, baseUrl, grantOf(request));
  };
}
