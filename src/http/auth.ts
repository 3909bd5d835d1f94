import { createHash, timingSafeEqual } from 'node:crypto';

/** Outcome of checking a request's `X-API-Token` header. */
export type TokenCheck = 'ok' | 'missing' | 'invalid';

/** The header every `/api/` request carries. */
export const TOKEN_HEADER = 'x-api-token';

/** Builds a checker that compares a presented token with the expected one in constant time. */
export function createTokenChecker(
  expected: string,
): (presented: string | string[] | undefined) => TokenCheck {
  // Comparing fixed-length digests keeps the time independent of both the length and the content of the guess.
  const expectedDigest = digest(expected);
  return (presented) => {
    if (presented === undefined || presented === '') return 'missing';
    const value = Array.isArray(presented) ? presented[0] : presented;
    return timingSafeEqual(digest(value), expectedDigest) ? 'ok' : 'invalid';
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
