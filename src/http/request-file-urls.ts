import type { FastifyRequest } from 'fastify';
import { grantOf } from './auth/request-scope.ts';
import type { FileUrlSigner } from './file-url-signer.ts';

/** Turns a blob key into the signed `/files/` URL a client fetches. */
export type UrlFor = (key: string) => string;

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
    return (key) => signer.sign(key, baseUrl, grantOf(request));
  };
}
