/** Longest a file URL may outlive the revocation or expiry of the token it was handed to. */
export const GRANT_RECHECK_MS = 15_000;

// Only ids inside a valid signature get here, so the map holds real tokens' ids; the bound is a guard, not a policy.
const MAX_REMEMBERED = 10_000;

/** Options of {@link createLiveGrants}. */
export interface LiveGrantsOptions {
  /** Whether the scoped token with this id still exists and has not expired (one query). */
  isLive: (tokenId: string) => Promise<boolean>;
  /** How long an answer is reused before the token is looked up again. */
  recheckMs?: number;
  /** The clock, in milliseconds (tests move it). */
  now?: () => number;
}

/** Tells whether the token a signed file URL names may still open it. */
export interface LiveGrants {
  /** Whether the token `tokenId` is still live, as the database said at most `recheckMs` ago. */
  isLive(tokenId: string): Promise<boolean>;
  /** Drops what is known of a token, so this process refuses its URLs at once once it is revoked here. */
  forget(tokenId: string): void;
}

/**
 * Checks the grants of signed file URLs with a short memory: a page loads many files with one token's URLs, and a
 * query per file would cost more than the file. Concurrent checks of one token share one query; a failed query is
 * not remembered, so the next request asks again.
 */
export function createLiveGrants(options: LiveGrantsOptions): LiveGrants {
  const now = options.now ?? Date.now;
  const recheckMs = options.recheckMs ?? GRANT_RECHECK_MS;
  const known = new Map<string, { answer: Promise<boolean>; at: number }>();
  return {
    isLive(tokenId) {
      const remembered = known.get(tokenId);
      if (remembered && now() - remembered.at < recheckMs) return remembered.answer;
      if (known.size >= MAX_REMEMBERED) known.clear();
      const entry = { answer: options.isLive(tokenId), at: now() };
      known.set(tokenId, entry);
      entry.answer.catch(() => {
        if (known.get(tokenId) === entry) known.delete(tokenId);
      });
      return entry.answer;
    },
    forget(tokenId) {
      known.delete(tokenId);
    },
  };
}
