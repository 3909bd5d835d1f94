import { createHmac, timingSafeEqual } from 'node:crypto';
import { filesRouteUrl } from '../../storage/files-route.ts';

/** Query parameter holding a signed URL's expiry, in Unix seconds. */
export const EXPIRES_PARAM = 'expires';
/** Query parameter holding a signed URL's signature (base64url HMAC-SHA256). */
export const SIGNATURE_PARAM = 'signature';
/** Query parameter naming the scoped token a signed URL was handed to; absent on the admin token's URLs. */
const GRANT_PARAM = 'grant';

// Scoped tokens' ids are UUIDs; anything else in the parameter was not written by the signer.
const GRANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Route prefix of files reached through a folder grant: `/folders/<grant>/<key>`. */
export const FOLDERS_ROUTE_PREFIX = '/folders/';
/** Stands for the admin token in a folder grant, where a scoped token's id would be. */
const ADMIN_GRANT = 'admin';
/** A folder grant: `<expires>.<folder depth in segments>.<token id or admin>.<signature>`. */
const FOLDER_SEGMENT =
  /^(\d{1,12})\.(\d{1,3})\.(admin|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([A-Za-z0-9_-]{1,100})$/;

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
  /**
   * The URL of `key` under a grant of its whole `folder` (a prefix of `key` ending in `/`), signed like
   * {@link sign} but with the signature in the path (`/folders/<grant>/<key>`): a relative reference inside the
   * file (a tileset's `tiles/0-1.glb`) resolves to another URL under the same grant, which a query string would
   * not survive.
   */
  signFolder(key: string, folder: string, baseUrl: string, grant?: string): string;
  /** Whether a `/folders/` grant segment is an unexpired signature of a folder that holds `key`. */
  checkFolder(segment: string, key: string): FileSignatureCheck;
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
  const expiry = (): number => {
    const nowSeconds = Math.floor(now() / 1000);
    return nowSeconds - (nowSeconds % stepSeconds) + lifetimeSeconds;
  };
  // A folder grant's payload starts with its own word, so it can pass for neither a file's nor a grant's.
  const folderSignatureOf = (folder: string, expires: number, grant: string | undefined): Buffer =>
    createHmac('sha256', options.key)
      .update(`folder ${grant ?? ''}\n${expires}\n${folder}`)
      .digest();
  return {
    sign(key, baseUrl, grant) {
      const expires = expiry();
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
      // Checked before the expiry, so an old URL with a made-up expiry is "altered", not merely "expired".
      if (!sameSignature(signatureRaw, signatureOf(key, expires, grant))) {
        return { valid: false, reason: 'altered' };
      }
      const secondsLeft = expires - Math.floor(now() / 1000);
      if (secondsLeft <= 0) return { valid: false, reason: 'expired' };
      return { valid: true, secondsLeft, grant };
    },
    signFolder(key, folder, baseUrl, grant) {
      if (!folder.endsWith('/') || !key.startsWith(folder) || key === folder)
        throw new Error(`${key} is not a file in the folder ${folder}`);
      const expires = expiry();
      const depth = folder.split('/').length - 1;
      const signature = folderSignatureOf(folder, expires, grant).toString('base64url');
      const segment = `${expires}.${depth}.${grant ?? ADMIN_GRANT}.${signature}`;
      return `${baseUrl}${FOLDERS_ROUTE_PREFIX}${segment}/${key.split('/').map(encodeURIComponent).join('/')}`;
    },
    checkFolder(segment, key) {
      const match = FOLDER_SEGMENT.exec(segment);
      if (!match) return { valid: false, reason: 'altered' };
      const [, expiresRaw, depthRaw, grantRaw, signatureRaw] = match;
      const segments = key.split('/');
      const depth = Number(depthRaw);
      // The key must lie strictly inside the folder, with no segment a URL would normalise away.
      if (depth < 1 || segments.length <= depth || segments.some((part) => ['', '.', '..'].includes(part)))
        return { valid: false, reason: 'altered' };
      const folder = `${segments.slice(0, depth).join('/')}/`;
      const grant = grantRaw === ADMIN_GRANT ? undefined : grantRaw;
      const expires = Number(expiresRaw);
      if (!sameSignature(signatureRaw, folderSignatureOf(folder, expires, grant))) {
        return { valid: false, reason: 'altered' };
      }
      const secondsLeft = expires - Math.floor(now() / 1000);
      if (secondsLeft <= 0) return { valid: false, reason: 'expired' };
      return { valid: true, secondsLeft, grant };
    },
  };
}

/**
 * Whether a URL's signature text is exactly the expected signature's base64url form. Compared as text, not as the
 * bytes it decodes to: a decoder ignores a last character's unused bits and any character outside the alphabet,
 * so a signature altered there would decode to the right bytes and pass.
 */
function sameSignature(presented: string, expected: Buffer): boolean {
  const wanted = Buffer.from(expected.toString('base64url'));
  const given = Buffer.from(presented);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}
