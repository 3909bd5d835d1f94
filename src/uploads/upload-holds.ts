import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/** How long a hold outlives a process that died while turning an upload into a model. */
export const UPLOAD_HOLD_MS = 60 * 60 * 1000;

/** Marks a finished upload as being turned into a model, so that only one request at a time does it. */
export interface UploadHolds {
  /** True when this caller now holds the upload; false when another request does. */
  claim(id: string): Promise<boolean>;
  /** Lets the upload go (made a model, or given back). */
  release(id: string): Promise<void>;
}

/** Holds seen by this process only: enough for one API process. */
export function createLocalUploadHolds(): UploadHolds {
  const held = new Set<string>();
  return {
    claim: async (id) => {
      if (held.has(id)) return false;
      held.add(id);
      return true;
    },
    release: async (id) => {
      held.delete(id);
    },
  };
}

// Deletes the hold only if it is still the one this claim set, so a late release cannot drop another request's.
const RELEASE_OWN_HOLD = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;

/**
 * Holds in Redis under the installation's prefix, seen by every API process. A hold expires after
 * {@link UPLOAD_HOLD_MS}, so the upload of a process killed mid-way can be taken again. Each claim sets a value of
 * its own, and a release deletes only that value.
 */
export function createRedisUploadHolds(redis: Redis, prefix: string): UploadHolds {
  const key = (id: string) => `${prefix}:upload-hold:${id}`;
  // The value of each hold this process holds, by upload.
  const own = new Map<string, string>();
  const releaseOwn = async (id: string, value: string) => {
    await redis.eval(RELEASE_OWN_HOLD, 1, key(id), value);
  };
  return {
    claim: async (id) => {
      const value = `${process.pid}:${randomUUID()}`;
      try {
        const claimed = (await redis.set(key(id), value, 'PX', UPLOAD_HOLD_MS, 'NX')) === 'OK';
        if (claimed) own.set(id, value);
        return claimed;
      } catch (error) {
        // A command that timed out may still reach a stalled Redis once it answers again, and set a hold nobody
        // would release for an hour: every retry of the upload would be refused as busy. A release sent now on the
        // same connection runs after it.
        releaseOwn(id, value).catch(() => {});
        throw error;
      }
    },
    release: async (id) => {
      const value = own.get(id);
      if (value === undefined) return;
      own.delete(id);
      await releaseOwn(id, value);
    },
  };
}
