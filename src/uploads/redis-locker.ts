import { randomBytes } from 'node:crypto';
import { ERRORS, type Lock, type Locker, type RequestRelease } from '@tus/utils';
import type { Redis } from 'ioredis';

/** Options of {@link RedisLocker}. */
export interface RedisLockerOptions {
  /** First part of every key and channel: the installation's REDIS_PREFIX. */
  prefix: string;
  /** How long a request waits for another to let an upload go before answering 500 (tus's lock timeout). */
  acquireTimeoutMs?: number;
  /** Life of a lock whose process stopped renewing it (killed); a live holder renews it well before. */
  leaseMs?: number;
}

const RETRY_MS = 50;
// Deletes or extends the key only while it still holds our token, so a lock that expired and was taken by
// another request is never released or extended by the old holder.
const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;

/**
 * The tus server's upload lock across every API process of an installation. tus locks an upload for each request
 * on it (a HEAD waits for a PATCH in progress); its own locker is per process, so with a balancer in front a HEAD
 * on one process could read an offset another process's PATCH is still moving. A lock is a Redis key set with NX
 * and a lease the holder renews; a waiting request publishes on the upload's channel, and the holder, subscribed,
 * is asked to let go, as the in-memory locker does it.
 */
export class RedisLocker implements Locker {
  private readonly releaseWanted = new Map<string, Set<RequestRelease>>();
  private readonly acquireTimeoutMs: number;
  private readonly leaseMs: number;

  /** `redis` runs the commands; `subscriber` is a connection of its own, given over to release requests. */
  constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly options: RedisLockerOptions,
  ) {
    this.acquireTimeoutMs = options.acquireTimeoutMs ?? 30_000;
    this.leaseMs = options.leaseMs ?? 30_000;
    subscriber.on('message', (channel: string) => {
      for (const requestRelease of this.releaseWanted.get(channel) ?? []) void requestRelease();
    });
  }

  /** A lock on one upload. */
  newLock(id: string): Lock {
    return new RedisLock(this, id);
  }

  /** The key of an upload's lock. */
  keyOf(id: string): string {
    return `${this.options.prefix}:tus-lock:${id}`;
  }

  /** The channel on which other requests ask the holder of an upload's lock to let it go. */
  channelOf(id: string): string {
    return `${this.options.prefix}:tus-lock-release:${id}`;
  }

  /** Takes the lock, asking its holder to let go meanwhile; throws tus's lock timeout after the wait. */
  async acquire(id: string, token: string, signal: AbortSignal): Promise<void> {
    const deadline = Date.now() + this.acquireTimeoutMs;
    for (;;) {
      const taken = await this.redis.set(this.keyOf(id), token, 'PX', this.leaseMs, 'NX');
      if (taken === 'OK') return;
      if (signal.aborted || Date.now() >= deadline) throw ERRORS.ERR_LOCK_TIMEOUT;
      await this.redis.publish(this.channelOf(id), token);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  /** Listens for release requests while the lock is held. */
  async listen(id: string, requestRelease: RequestRelease): Promise<void> {
    const channel = this.channelOf(id);
    const listeners = this.releaseWanted.get(channel) ?? new Set();
    if (listeners.size === 0) await this.subscriber.subscribe(channel);
    listeners.add(requestRelease);
    this.releaseWanted.set(channel, listeners);
  }

  /** Stops listening and releases the lock if it is still ours. */
  async release(id: string, token: string, requestRelease: RequestRelease): Promise<void> {
    const channel = this.channelOf(id);
    const listeners = this.releaseWanted.get(channel);
    listeners?.delete(requestRelease);
    if (listeners?.size === 0) {
      this.releaseWanted.delete(channel);
      await this.subscriber.unsubscribe(channel);
    }
    await this.redis.eval(RELEASE, 1, this.keyOf(id), token);
  }

  /** Extends a held lock's lease; false when it is no longer ours. */
  async renew(id: string, token: string): Promise<boolean> {
    return (await this.redis.eval(RENEW, 1, this.keyOf(id), token, String(this.leaseMs))) === 1;
  }

  /** How often a holder renews its lease. */
  get renewEveryMs(): number {
    return Math.max(100, Math.floor(this.leaseMs / 3));
  }
}

class RedisLock implements Lock {
  private readonly token = randomBytes(12).toString('hex');
  private renewal: NodeJS.Timeout | undefined;
  private requestRelease: RequestRelease | undefined;

  constructor(
    private readonly locker: RedisLocker,
    private readonly id: string,
  ) {}

  async lock(signal: AbortSignal, requestRelease: RequestRelease): Promise<void> {
    await this.locker.acquire(this.id, this.token, signal);
    this.requestRelease = requestRelease;
    await this.locker.listen(this.id, requestRelease);
    this.renewal = setInterval(() => {
      // A renewal that fails (Redis away) leaves the lease to run out; the request itself fails on Redis too.
      void this.locker.renew(this.id, this.token).catch(() => {});
    }, this.locker.renewEveryMs);
    this.renewal.unref();
  }

  async unlock(): Promise<void> {
    clearInterval(this.renewal);
    const requestRelease = this.requestRelease ?? (async () => {});
    await this.locker.release(this.id, this.token, requestRelease);
  }
}
