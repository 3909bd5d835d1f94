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

/**
 * Holds in Redis under the installation's prefix, seen by every API process. A hold expires after
 * {@link UPLOAD_HOLD_MS}, so the upload of a process killed mid-way can be taken again.
 */
export function createRedisUploadHolds(redis: Redis, prefix: string): UploadHolds {
  const key = (id: string) => `${prefix}:upload-hold:${id}`;
  return {
    claim: async (id) => (await redis.set(key(id), String(process.pid), 'PX', UPLOAD_HOLD_MS, 'NX')) === 'OK',
    release: async (id) => {
      await redis.del(key(id));
    },
  };
}
