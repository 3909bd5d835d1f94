import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix of scoped API tokens; a presented value without it is never looked up in the database. */
export const SCOPED_TOKEN_PREFIX = 'vt_';

/** A fresh unguessable secret: 256 random bits as base64url, after `prefix`. */
export function newSecret(prefix = ''): string {
  return prefix + randomBytes(32).toString('base64url');
}

/** SHA-256 of a secret as hex, the form tokens and share secrets are stored and looked up by. */
export function secretDigest(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Compares two hex digests in constant time (both have the same fixed length). */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
