import { createHash } from 'node:crypto';

/** A bulk lookup reply kept for the material generation it was read at. */
export interface CachedLookup {
  generation: number;
  /** The reply's JSON bytes. */
  body: Buffer;
  etag: string;
}

/**
 * Bulk lookup replies by the exact bytes of their request, least recently used out first, within a byte budget.
 * A viewer opening a model asks for the same group ids each time; a kept reply is good while the material
 * generation it was read at is still current, which each hit checks with one read (see the 2026-11-25 migration).
 */
export interface LookupCache {
  /** The key of a request body. */
  keyOf(requestBody: Buffer): string;
  get(key: string): CachedLookup | undefined;
  set(key: string, entry: CachedLookup): void;
}

/** A cache holding at most `maxBytes` of replies; 0 keeps nothing. */
export function createLookupCache(maxBytes: number): LookupCache {
  const entries = new Map<string, CachedLookup>();
  let bytes = 0;
  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    bytes -= entry.body.length;
  };
  return {
    keyOf: (requestBody) => createHash('sha256').update(requestBody).digest('base64url'),
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      // Re-inserted so that the Map's insertion order is the order of use.
      entries.delete(key);
      entries.set(key, entry);
      return entry;
    },
    set(key, entry) {
      remove(key);
      if (entry.body.length > maxBytes) return;
      while (bytes + entry.body.length > maxBytes) remove(entries.keys().next().value!);
      entries.set(key, entry);
      bytes += entry.body.length;
    },
  };
}
