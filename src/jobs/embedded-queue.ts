import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { JobRow } from '../db/database.ts';
import { nowIso } from '../db/timestamps.ts';
import {
  DeferJobError,
  JobLane,
  JobName,
  jobsInLane,
  PermanentJobError,
  type Job,
  type JobHandlers,
} from './job-types.ts';
import type { JobQueue, QueueConsumer } from './queue.ts';
import { FAILURE_RETRY_DEFAULTS, recordWithRetries, type FailureRetry } from './record-failure.ts';

/** Tuning of the embedded queue. */
export interface EmbeddedQueueOptions {
  /** How long a claimed job stays with its worker without a heartbeat before another worker may take it. */
  leaseMs: number;
  /** How often an idle worker looks for due jobs (an enqueue in the same process wakes it at once). */
  pollMs: number;
  /** Wait before the second attempt; each later attempt waits four times longer. */
  backoffMs: number;
  /** Attempts a job gets unless its enqueue says otherwise. */
  maxAttempts: number;
  /** How long a job's final failure (the job's row, then its failure handler) is retried while it cannot be written. */
  failureRetry: FailureRetry;
  /** Where the queue reports what it does. */
  logger: Pick<Console, 'info' | 'warn' | 'error'>;
}

/** Defaults of {@link EmbeddedQueueOptions}. */
export const EMBEDDED_QUEUE_DEFAULTS: EmbeddedQueueOptions = {
  leaseMs: 30_000,
  pollMs: 1_000,
  backoffMs: 5_000,
  maxAttempts: 3,
  failureRetry: FAILURE_RETRY_DEFAULTS,
  logger: console,
};

const LOST_WORKER = 'The worker running this job stopped responding';

/**
 * A durable queue in the service's own database (SQLite or PostgreSQL): jobs survive restarts, a claim carries a
 * lease renewed by heartbeats, an expired lease puts the job back in play, and failures retry with back-off.
 */
export function createEmbeddedQueue(
  handle: DatabaseHandle,
  options: Partial<EmbeddedQueueOptions> = {},
): JobQueue {
  const settings = { ...EMBEDDED_QUEUE_DEFAULTS, ...options };
  const { db, dialect } = handle;
  const wakeUp = new EventEmitter();

  async function claim(workerId: string, names: readonly JobName[]): Promise<JobRow | undefined> {
    const now = nowIso();
    const leaseUntil = new Date(Date.now() + settings.leaseMs).toISOString();
    // PostgreSQL lets competing workers skip a row another is claiming; SQLite has one writer at a time anyway.
    const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
    const result = await sql<JobRow>`
      update jobs set status = 'running', attempts = attempts + 1, lease_until = ${leaseUntil},
        locked_by = ${workerId}, updated_at = ${now}
      where id = (
        select id from jobs
        where ((status = 'queued' and run_at <= ${now}) or (status = 'running' and lease_until < ${now}))
          and name in (${sql.join(names)})
        order by run_at, id limit 1 ${lock}
      )
      returning *`.execute(db);
    return result.rows[0];
  }

  async function settle(row: JobRow, workerId: string, values: Record<string, unknown>): Promise<void> {
    await db
      .updateTable('jobs')
      .set({ ...values, lease_until: null, locked_by: null, updated_at: nowIso() })
      .where('id', '=', row.id)
      .where('locked_by', '=', workerId)
      .execute();
  }

  // Back to `queued` (a retry or a hand-back). A copy with the same dedupe key may have been queued while this job
  // ran; the unique index then refuses a second queued row, and the queued copy already covers this work.
  async function requeue(row: JobRow, workerId: string, values: Record<string, unknown>): Promise<void> {
    try {
      await settle(row, workerId, { ...values, status: 'queued' });
    } catch (error) {
      const copy =
        row.dedupe_key === null
          ? undefined
          : await db
              .selectFrom('jobs')
              .select('id')
              .where('dedupe_key', '=', row.dedupe_key)
              .where('status', '=', 'queued')
              .executeTakeFirst();
      if (!copy) throw error;
      await db.deleteFrom('jobs').where('id', '=', row.id).where('locked_by', '=', workerId).execute();
    }
  }

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

    startConsumer(handlers: JobHandlers, workerOptions): QueueConsumer {
      for (const name of Object.values(JobName)) {
        if (!handlers[name]) throw new Error(`No handler for job "${name}"`);
      }
      const workerId = `${process.pid}-${randomUUID()}`;
      const names = jobsInLane(workerOptions.lane ?? JobLane.Work);
      const running = new Map<number, { controller: AbortController; done: Promise<void> }>();
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      // The claiming pass under way, so stop() can wait for a job it is about to start.
      let looking: Promise<void> | undefined;

      const schedule = (delay: number) => {
        if (stopped) return;
        clearTimeout(timer);
        timer = setTimeout(() => {
          if (looking || stopped) return;
          looking = fill().finally(() => {
            looking = undefined;
            schedule(settings.pollMs);
          });
        }, delay);
      };
      const onEnqueue = () => schedule(0);
      wakeUp.on('job', onEnqueue);

      async function fill(): Promise<void> {
        try {
          while (!stopped && running.size < workerOptions.concurrency) {
            const row = await claim(workerId, names);
            if (!row) break;
            // Started even when stop() came during the claim: stop() waits for this pass, then aborts and hands it back.
            start(row);
          }
        } catch (error) {
          settings.logger.error({ err: error }, 'job queue: claiming failed; retrying');
        }
      }

      function start(row: JobRow): void {
        const controller = new AbortController();
        const done = execute(row, controller)
          // Recording the outcome failed (the database went away): the lease runs out and the job runs again.
          .catch((error: unknown) =>
            settings.logger.error(
              { err: error, job_id: String(row.id), subject: row.subject },
              'job queue: could not record the outcome of a job',
            ),
          )
          .finally(() => {
            running.delete(row.id);
            schedule(0);
          });
        running.set(row.id, { controller, done });
      }

      async function execute(row: JobRow, controller: AbortController): Promise<void> {
        const { signal } = controller;
        const name = row.name as JobName;
        const job: Job = {
          id: String(row.id),
          name,
          payload: JSON.parse(row.payload),
          attempt: row.attempts,
          maxAttempts: row.max_attempts,
        };
        const handler = handlers[name] as JobHandlers[JobName] | undefined;
        const heartbeat = setInterval(() => {
          const leaseUntil = new Date(Date.now() + settings.leaseMs).toISOString();
          db.updateTable('jobs')
            .set({ lease_until: leaseUntil })
            .where('id', '=', row.id)
            .where('locked_by', '=', workerId)
            .executeTakeFirst()
            .then((result) => {
              // The lease ran out (a long pause) and another worker took the job: running on would do it twice.
              if (result.numUpdatedRows === 0n && !signal.aborted) {
                settings.logger.warn(
                  { job_id: job.id, subject: row.subject, name },
                  'job queue: lease lost to another worker; stopping',
                );
                controller.abort();
              }
            })
            .catch((error: unknown) => settings.logger.warn({ err: error }, 'job queue: heartbeat failed'));
        }, settings.leaseMs / 3);
        try {
          if (!handler) throw new PermanentJobError(`Unknown job "${row.name}"`);
          if (row.attempts > row.max_attempts) throw new PermanentJobError(LOST_WORKER);
          await (handler.run as (job: Job, signal: AbortSignal) => Promise<void>)(job, signal);
          // A job this worker no longer holds belongs to its new owner, who removes it.
          await db.deleteFrom('jobs').where('id', '=', row.id).where('locked_by', '=', workerId).execute();
        } catch (thrown) {
          const error = thrown instanceof Error ? thrown : new Error(String(thrown));
          if (signal.aborted) {
            // Handed back on shutdown: this attempt does not count.
            await requeue(row, workerId, { attempts: row.attempts - 1, run_at: nowIso() });
            return;
          }
          if (error instanceof DeferJobError) {
            const runAt = new Date(Date.now() + error.delayMs).toISOString();
            await requeue(row, workerId, { attempts: row.attempts - 1, run_at: runAt });
            return;
          }
          const final = error instanceof PermanentJobError || row.attempts >= row.max_attempts;
          settings.logger.warn(
            { job_id: job.id, subject: row.subject, name, attempt: row.attempts, err: error.message, final },
            'job queue: attempt failed',
          );
          if (final) {
            // Both writes wait out a database that is briefly away; the heartbeat keeps the lease until the first.
            const retried = (what: string) => (e: unknown, tries: number) => {
              if (tries === 1)
                settings.logger.warn({ err: e, job_id: job.id }, `job queue: ${what}; retrying`);
            };
            await recordWithRetries(
              () => settle(row, workerId, { status: 'failed', last_error: error.message }),
              settings.failureRetry,
              signal,
              retried('could not record a failed job'),
            );
            // The job is no longer this worker's to hold (settling cleared its lease): a heartbeat would take the
            // cleared lease for one lost and cut the failure handler short.
            clearInterval(heartbeat);
            if (handler) {
              await recordWithRetries(
                () => (handler.failed as (job: Job, error: Error) => Promise<void>)(job, error),
                settings.failureRetry,
                signal,
                retried('failure handler failed'),
              ).catch((e: unknown) =>
                settings.logger.error({ err: e, job_id: job.id }, 'job queue: failure handler failed'),
              );
            }
          } else {
            const wait = settings.backoffMs * 4 ** (row.attempts - 1);
            const runAt = new Date(Date.now() + wait).toISOString();
            await requeue(row, workerId, { run_at: runAt, last_error: error.message });
          }
        } finally {
          clearInterval(heartbeat);
        }
      }

      schedule(0);
      return {
        async stop() {
          stopped = true;
          clearTimeout(timer);
          wakeUp.off('job', onEnqueue);
          await looking;
          for (const { controller } of running.values()) controller.abort();
          await Promise.allSettled([...running.values()].map((entry) => entry.done));
        },
      };
    },
  };
}
