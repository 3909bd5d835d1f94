import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from './private-address.ts';

/** How a delivery is posted. */
export interface PostOptions {
  /** Refuse receivers whose address is private (`WEBHOOK_REFUSE_PRIVATE_ADDRESSES`). */
  refusePrivate: boolean;
  /** The whole exchange must finish within this. */
  timeoutMs: number;
  headers: Record<string, string>;
  signal?: AbortSignal;
}

/** A receiver that may not be reached; retrying will not change that. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
}

/** Message of a refused receiver. */
export const PRIVATE_ADDRESS_MESSAGE =
  'the receiver has a private address, which WEBHOOK_REFUSE_PRIVATE_ADDRESSES refuses';

// Resolves as usual, then refuses a private answer: checked on the address connected to, so a name that resolves
// differently later (DNS rebinding) is caught too.
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: false }, (error, address, family) => {
    if (error) return callback(error, '', 0);
    if (isPrivateAddress(address)) return callback(new RefusedAddressError(PRIVATE_ADDRESS_MESSAGE), '', 0);
    callback(null, address, family);
  });
};

/**
 * Posts a JSON body and resolves with the receiver's status code; redirects are not followed (a 3xx is the
 * answer). Rejects on a network failure, a timeout or a refused address.
 */
export function postWebhook(url: string, body: string, options: PostOptions): Promise<number> {
  const target = new URL(url);
  const literal = target.hostname.replace(/^\[|\]$/g, '');
  if (options.refusePrivate && (isPrivateAddress(literal) || literal === 'localhost')) {
    return Promise.reject(new RefusedAddressError(PRIVATE_ADDRESS_MESSAGE));
  }
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      target,
      {
        method: 'POST',
        headers: {
          ...options.headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
        timeout: options.timeoutMs,
        signal: options.signal,
        ...(options.refusePrivate ? { lookup: publicOnlyLookup } : {}),
      },
      (response) => {
        // The answer's body is not used; reading it lets the socket be reused or closed.
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    const deadline = setTimeout(
      () => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)));
    request.on('error', reject);
    request.end(body);
  });
}
