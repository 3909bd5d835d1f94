import { hash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A weak entity tag of a reply body: SHA-1 of its bytes, base64url. Weak because the same tag names the identity,
 * gzip and br encodings of the body, which differ byte for byte.
 */
export function weakEtag(body: string | Buffer): string {
  return `W/"${hash('sha1', body, 'base64url')}"`;
}

/** Whether an `If-None-Match` header names the tag (weak comparison, as RFC 9110 §13.1.2 requires) or is `*`. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = withoutWeakPrefix(etag);
  return ifNoneMatch.split(',').some((listed) => {
    const tag = listed.trim();
    return tag === '*' || withoutWeakPrefix(tag) === opaque;
  });
}

function withoutWeakPrefix(tag: string): string {
  return tag.startsWith('W/') ? tag.slice(2) : tag;
}

/**
 * An `onSend` hook that tags a successful reply with {@link weakEtag} and, when the request's `If-None-Match`
 * names that tag, answers 304 with no body. Runs before compression, on the serialized identity body.
 */
export function tagReply(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: Error | null, payload?: unknown) => void,
): void {
  if (reply.statusCode !== 200) return done(null, payload);
  // A route that knows its tag already (a kept reply) sets it, sparing a hash of a large body; a streamed body is
  // tagged by its route or not at all.
  const known = reply.getHeader('etag');
  const bytes = typeof payload === 'string' || Buffer.isBuffer(payload);
  if (!bytes && typeof known !== 'string') return done(null, payload);
  const etag = typeof known === 'string' ? known : weakEtag(payload as string | Buffer);
  reply.header('etag', etag);
  if (!etagMatches(request.headers['if-none-match'], etag)) return done(null, payload);
  if (payload instanceof Readable) payload.destroy();
  reply.code(304).removeHeader('content-type').removeHeader('content-length');
  done(null, '');
}
