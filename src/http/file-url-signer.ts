import { createHmac, timingSafeEqual } from 'node:crypto';
import { filesRouteUrl } from '../storage/files-route.ts';

/** Query parameter holding a signed URL's expiry, in Unix seconds. */
export const EXPIRES_PARAM = 'expires';
/** Query parameter holding a signed URL's signature (base64url HMAC-SHA256). */
export const SIGNATURE_PARAM = 'signature';
/** Query parameter naming the scoped token a signed URL was handed to; absent on the admin token's URLs. */
const GRANT_PARAM = 'grant';

// Scoped tokens' ids are UUIDs; anything else in the parameter was not written by the signer.
const GRANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Options of {@link createFileUrlSigner}. */
export interface FileUrlSignerOptions {
  /** The signing key (see {@link fileSigningKey}). */
  key: Buffer;
  /** Life of a handed-out URL (`FILE_URL_EXPIRES_SECONDS`). */
  lifetimeMs: number;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

/**
 * Outcome of checking a request's signature: valid for `secondsLeft` more, for the scoped token `grant` names
 * (undefined: the admin token's URL), or why not.
 */
export type FileSignatureCheck =
  | { valid: true; secondsLeft: number; grant: string | undefined }
  | { valid: false; reason: 'unsigned' | 'expired' | 'altered' };

/** Signs `/files/` URLs and checks the signatures requests bring. */
export interface FileUrlSigner {
  /**
   * The `/files/` URL of `key` under `baseUrl`, signed until some time between half the lifetime and all of it;
   * with `grant` (a scoped token's id) the URL names the token and the signature covers it.
   */
  sign(key: string, baseUrl: string, grant?: string): string;
  /** Whether `query` holds an unexpired signature of exactly `key` (and of the grant it names). */
  check(key: string, query: Record<string, unknown>): FileSignatureCheck;
}

/**
 * The key signatures are made with: FILE_URL_SECRET when set, else one derived from the admin token, so every
 * process that accepts the same token agrees on signatures without another setting. Derived (not the token
 * itself) so a signature says nothing about the token.
 */
export function fileSigningKey(configuredSecret: string | undefined, adminToken: string): Buffer {
  return createHmac('sha256', configuredSecret ?? adminToken)
    .update('vitrine file URL signatures')
    .digest();
}

/**
 * Builds a signer of `/files/` URLs: `?expires=<unix seconds>&signature=<HMAC of key and expiry>`, with
 * `&grant=<token id>` before the signature (and inside it) for a scoped token's URL. Expiries are rounded to steps
 * of half the lifetime, so the URL of a file stays the same for a while and browsers reuse what they cached, while
 * every URL handed out still has at least half the lifetime left.
 */
export function createFileUrlSigner(options: FileUrlSignerOptions): FileUrlSigner {
  const now = options.now ?? Date.now;
  const lifetimeSeconds = Math.floor(options.lifetimeMs / 1000);
  const stepSeconds = Math.max(1, Math.floor(lifetimeSeconds / 2));
  // The admin token's payload is unchanged, so its URLs handed out before grants existed stay valid; a grant's
  // payload starts with a word where that one starts with digits, so neither can pass for the other.
  const signatureOf = (key: string, expires: number, grant: string | undefined): Buffer =>
    createHmac('sha256', options.key)
      .update(grant === undefined ? `${expires}\n${key}` : `grant ${grant}\n${expires}\n${key}`)
      .digest();
  return {
    sign(key, baseUrl, grant) {
      const nowSeconds = Math.floor(now() / 1000);
      const expires = nowSeconds - (nowSeconds % stepSeconds) + lifetimeSeconds;
      const signature = signatureOf(key, expires, grant).toString('base64url');
      const granted = grant === undefined ? '' : `&${GRANT_PARAM}=${grant}`;
      return `${filesRouteUrl(key, baseUrl)}?${EXPIRES_PARAM}=${expires}${granted}&${SIGNATURE_PARAM}=${signature}`;
    },
    check(key, query) {
      const expiresRaw = query[EXPIRES_PARAM];
      const signatureRaw = query[SIGNATURE_PARAM];
      const grant = query[GRANT_PARAM];
      if (expiresRaw === undefined && signatureRaw === undefined && grant === undefined)
        return { valid: false, reason: 'unsigned' };
      if (
        typeof expiresRaw !== 'string' ||
        typeof signatureRaw !== 'string' ||
        !/^\d{1,12}$/.test(expiresRaw) ||
        (grant !== undefined && (typeof grant !== 'string' || !GRANT_ID.test(grant)))
      ) {
        return { valid: false, reason: 'altered' };
      }
      const expires = Number(expiresRaw);
      const presented = Buffer.from(signatureRaw, 'base64url');
      const expected = signatureOf(key, expires, grant);
      // Checked before the expiry, so an old URL with a made-up expiry is "altered", not merely "expired".
      if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) {
        return { valid: false, reason: 'altered' };
      }
      const secondsLeft = expires - Math.floor(now() / 1000);
      if (secondsLeft <= 0) return { valid: false, reason: 'expired' };
      return { valid: true, secondsLeft, grant };
    },
  };
}
