import type { FastifyReply, FastifyRequest } from 'fastify';
import { DATABASE_UNAVAILABLE } from '../../db/unavailable.ts';
import { GRANT_RECHECK_MS, type LiveGrants } from '../auth/live-grants.ts';
import { TOKEN_HEADER, type TokenChecker } from '../auth/token-checker.ts';
import type { FileSignatureCheck, FileUrlSigner } from './file-url-signer.ts';

/** What deciding on a `/files/` request needs. */
export interface FileAccessOptions {
  /** Checks the signature a handed-out URL carries. */
  signer: FileUrlSigner;
  /** Checks an `X-API-Token` header, the other way in. */
  checkToken: TokenChecker;
  /** Whether the scoped token a signed URL was handed to is still live. */
  grants: LiveGrants;
}

/**
 * A granted request, how long the client may reuse its answer without asking (0: revalidate every time) and
 * whether its grant can be revoked (a scoped token's), or a refusal and its message.
 */
export type FileAccess =
  | { granted: true; reuseSeconds: number; revocable: boolean }
  | { granted: false; status: RefusedStatus; message: string };

/**
 * Status of a refused `/files/` request: 404 whether the file exists or not, as if there were none (the address
 * alone opens nothing and tells nothing); 401 for a wrong `X-API-Token`, as everywhere in the API; 503 when the
 * database that says whether a grant is live cannot be asked.
 */
type RefusedStatus = 401 | 404 | 503;

const REFUSALS = {
  unsigned: 'This file needs a signed URL from the API or an X-API-Token header',
  expired: 'This file URL has expired; ask the API for a fresh one',
  altered: 'This file URL is not signed for this file',
  revoked: 'This file URL was handed to a token that is revoked or expired',
  token: 'invalid API token',
} as const;

/**
 * How soon after a revocation a revoked grant's files are out of reach everywhere: a cached answer's reuse and the
 * presigned URL it led to (S3) together stay within it.
 */
export const REVOKED_WITHIN_SECONDS = 30;

// A scoped token's URL is reused no longer than its grant is trusted unchecked, so a revoked token's files leave
// browsers' caches as soon as the server refuses them.
const GRANT_REUSE_SECONDS = GRANT_RECHECK_MS / 1000;

/**
 * Decides a `/files/<key>` request: a valid signature of `key` grants it until the signature expires (cached
 * privately no longer than that) and, for a URL handed to a scoped token, while that token is live (cached no
 * longer than the token is trusted unchecked); a valid `X-API-Token` grants it for this request only (revalidated
 * with the ETag every time). Anything else is refused before the store is asked, so a refusal says nothing about
 * whether the file exists.
 */
export async function decideFileAccess(
  request: FastifyRequest,
  key: string,
  options: FileAccessOptions,
): Promise<FileAccess> {
  const signature = options.signer.check(key, request.query as Record<string, unknown>);
  if (signature.valid) return grantedBySignature(signature, options);
  const presented = request.headers[TOKEN_HEADER];
  if (signature.reason === 'unsigned' && presented !== undefined) {
    const scope = await options.checkToken(presented);
    if (scope === 'missing' || scope === 'invalid')
      return { granted: false, status: 401, message: REFUSALS.token };
    // Only the admin token cannot be revoked.
    return { granted: true, reuseSeconds: 0, revocable: scope !== 'admin' };
  }
  return { granted: false, status: 404, message: REFUSALS[signature.reason] };
}

/**
 * Decides a `/folders/<segment>/<key>` request: granted when `segment` is an unexpired signature of a folder holding
 * `key`, as a signed `/files/` URL is (and while the scoped token it was handed to lives); anything else is 404.
 */
export async function decideFolderAccess(
  segment: string,
  key: string,
  options: FileAccessOptions,
): Promise<FileAccess> {
  const signature = options.signer.checkFolder(segment, key);
  if (signature.valid) return grantedBySignature(signature, options);
  return { granted: false, status: 404, message: REFUSALS[signature.reason] };
}

/** What a valid signature grants: until it expires, and for a scoped token's, while that token lives. */
async function grantedBySignature(
  signature: Extract<FileSignatureCheck, { valid: true }>,
  options: FileAccessOptions,
): Promise<FileAccess> {
  if (signature.grant === undefined)
    return { granted: true, reuseSeconds: signature.secondsLeft, revocable: false };
  // Whether the grant lives is the database's to say: while it cannot, the request is refused as retryable.
  const live = await options.grants.isLive(signature.grant).catch(() => undefined);
  if (live === undefined) return { granted: false, status: 503, message: DATABASE_UNAVAILABLE };
  if (!live) return { granted: false, status: 404, message: REFUSALS.revoked };
  return {
    granted: true,
    reuseSeconds: Math.min(signature.secondsLeft, GRANT_REUSE_SECONDS),
    revocable: true,
  };
}

/** Private caching for at most `seconds`: never `public` or `immutable`, since the answer needed a grant. */
export function privateCacheControl(seconds: number): string {
  return seconds > 0 ? `private, max-age=${seconds}` : 'private, no-cache';
}

/** Sends the refusal: plain text like the rest of `/files/`, readable by any page, never cached. */
export function refuseFile(
  reply: FastifyReply,
  { status, message }: { status: number; message: string },
): FastifyReply {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('access-control-allow-origin', '*')
    .type('text/plain; charset=utf-8')
    .send(`${message}\n`);
}
