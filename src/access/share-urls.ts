import type { FastifyRequest } from 'fastify';

/** Path of the public page of a share secret. */
export const SHARE_PREFIX = '/s/';

/** Base of handed-out URLs: PUBLIC_BASE_URL when set, else the address this request came to. */
export function baseUrlOf(publicBaseUrl: string | undefined, request: FastifyRequest): string {
  return (publicBaseUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
}

/** The public page of a share secret. */
export function sharePageUrl(baseUrl: string, secret: string): string {
  return `${baseUrl}${SHARE_PREFIX}${secret}`;
}

/** The secret of a share page URL, or undefined when the URL is not a share page of this service. */
export function secretOfShareUrl(url: string, baseUrl: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.origin !== new URL(baseUrl).origin) return undefined;
  const match = /^\/s\/([A-Za-z0-9_-]{1,100})\/?$/.exec(parsed.pathname);
  return match?.[1];
}
