import { EventEmitter } from 'node:events';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import { nowIso } from '../db/timestamps.ts';
import { startEmbeddedConsumer } from './embedded-consumer.ts';
import { createEmbeddedLeases } from './embedded-leases.ts';
import { EMBEDDED_QUEUE_DEFAULTS, type EmbeddedQueueOptions } from './embedded-queue-options.ts';
import type { JobQueue } from './queue.ts';

export { EMBEDDED_QUEUE_DEFAULTS, type EmbeddedQueueOptions } from './embedded-queue-options.ts';

/**
 * A durable queue in the service's own database (SQLite or PostgreSQL): jobs survive restarts, a claim carries a
 * lease renewed by heartbeats, an expired lease puts the job back in play, and failures retry with back-off.
 */
export function createEmbeddedQueue(
  handle: DatabaseHandle,
  options: Partial<EmbeddedQueueOptions> = {},
): JobQueue {
  const settings = { ...EMBEDDED_QUEUE_DEFAULTS, ...options };
  const { db } = handle;
  const wakeUp = new EventEmitter();

  const leases = createEmbeddedLeases(handle, settings.leaseMs);

  return {
    async enqueue(name, payload, enqueueOptions = {}) {
      const { transaction, delayMs = 0 } = enqueueOptions;
      const writer = transaction ?? db;
      const now = nowIso();
      const inserted = await writer
        .insertInto('jobs')
        .values({
          name,
          payload: JSON.stringify(payload),
          status: 'queued',
          attempts: 0,
          max_attempts: enqueueOptions.maxAttempts ?? settings.maxAttempts,
          subject: enqueueOptions.subject ?? null,
          dedupe_key: enqueueOptions.dedupeKey ?? null,
          run_at: new Date(Date.now() + delayMs).toISOString(),
          created_at: now,
          updated_at: now,
        })
        // The predicate is literal so both databases match it to the partial unique index.
        .onConflict((oc) =>
          oc
            .column('dedupe_key')
            .where(sql<boolean>`status = 'queued'`)
            .doNothing(),
        )
        .returning('id')
        .executeTakeFirst();
      if (inserted) {
        // A job in an open transaction is invisible to workers until it commits; the caller promotes it then.
        if (!transaction && delayMs === 0) wakeUp.emit('job');
        return { id: String(inserted.id), deduplicated: false };
      }
      const existing = await writer
        .selectFrom('jobs')
        .select('id')
        .where('dedupe_key', '=', enqueueOptions.dedupeKey ?? '')
        .where('status', '=', 'queued')
        .executeTakeFirstOrThrow();
      return { id: String(existing.id), deduplicated: true };
    },

    async promote(id) {
      const now = nowIso();
      await db
        .updateTable('jobs')
        .set({ run_at: now, updated_at: now })
        .where('id', '=', Number(id))
        .where('status', '=', 'queued')
        .where('run_at', '>', now)
        .execute();
      wakeUp.emit('job');
    },

    async hasLiveJob(subject, name) {
      const live = await db
        .selectFrom('jobs')
        .select('id')
        .where('subject', '=', subject)
        .where('name', '=', name)
        .where('status', 'in', ['queued', 'running'])
        .executeTakeFirst();
      return live !== undefined;
    },

    async jobState(subject, name) {
      if (await this.hasLiveJob(subject, name)) return 'live';
      const kept = await db
        .selectFrom('jobs')
        .select('id')
        .where('subject', '=', subject)
        .where('name', '=', name)
        .executeTakeFirst();
      return kept ? 'ended' : 'none';
    },

    async cancelQueued(subject, cancelOptions = {}) {
      const result = await (cancelOptions.transaction ?? db)
        .deleteFrom('jobs')
        .where('subject', '=', subject)
        .where('status', 'in', ['queued', 'failed'])
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },

    // Nothing to release: the queue lives in the service's database, which its owner closes.
    async close() {},

    startConsumer(handlers, workerOptions) {
      return startEmbeddedConsumer(leases, wakeUp, settings, handlers, workerOptions);
    },
  };
}
