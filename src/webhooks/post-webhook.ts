import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressGuard } from './address-guard.ts';
import {
  guardedLookup,
  PRIVATE_ADDRESS_MESSAGE,
  RefusedAddressError,
  type ResolveHost,
} from './guarded-lookup.ts';
import { hostAddress } from './private-address.ts';

/** How a delivery is posted. */
export interface PostOptions {
  /** Which addresses may be connected to. */
  guard: AddressGuard;
  /** Resolves the receiver's host name; the system resolver unless a test replaces it. */
  resolve?: ResolveHost;
  /** The whole exchange (lookup, connect, request, answer) must finish within this. */
  timeoutMs: number;
  headers: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * Posts a JSON body and resolves with the receiver's status code; redirects are not followed (a 3xx is the
 * answer). Rejects on a network failure, a timeout or a refused address ({@link RefusedAddressError}).
 */
export function postWebhook(url: string, body: string, options: PostOptions): Promise<number> {
  const target = new URL(url);
  // An address in the URL is connected to without a lookup, so it is judged here.
  const literal = hostAddress(target.hostname);
  if (net.isIP(literal) !== 0 && options.guard.refuses(literal)) {
    return Promise.reject(new RefusedAddressError(`${literal}: ${PRIVATE_ADDRESS_MESSAGE}`));
  }
  const client = target.protocol === 'https:' ? https : http;
  const timedOut = () => new Error(`no answer within ${options.timeoutMs / 1000} s`);
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
        // A socket of its own: a kept-alive one could have been opened before the guard changed.
        agent: false,
        timeout: options.timeoutMs,
        signal: options.signal,
        lookup: guardedLookup(options.guard, options.resolve),
      },
      (response) => {
        // The answer's body is not used; reading it lets the socket close.
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    const deadline = setTimeout(() => request.destroy(timedOut()), options.timeoutMs);
    request.on('close', () => clearTimeout(deadline));
    request.on('timeout', () => request.destroy(timedOut()));
    request.on('error', reject);
    request.end(body);
  });
}
