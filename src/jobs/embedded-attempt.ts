// One attempt at a claimed job of the embedded queue: its handler under a heartbeat that keeps the lease, then what
// the outcome asks for: the row removed, handed back, deferred, retried with back-off, or failed for good.
import type { JobRow } from '../db/database.ts';
import { nowIso } from '../db/timestamps.ts';
import type { EmbeddedLeases } from './embedded-leases.ts';
import type { EmbeddedQueueOptions } from './embedded-queue-options.ts';
import { DeferJobError, PermanentJobError, type Job, type JobHandlers, type JobName } from './job-types.ts';
import { recordWithRetries } from './record-failure.ts';

const LOST_WORKER = 'The worker running this job stopped responding';

/** What an attempt runs with: the worker's leases and name, the handlers, and the queue's tuning. */
export interface AttemptContext {
  leases: EmbeddedLeases;
  workerId: string;
  handlers: JobHandlers;
  settings: EmbeddedQueueOptions;
}

/** Runs a claimed job once and records its outcome; aborting `controller` hands the job back uncounted. */
export async function runEmbeddedAttempt(
  row: JobRow,
  controller: AbortController,
  context: AttemptContext,
): Promise<void> {
  const { leases, workerId, handlers, settings } = context;
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
    leases
      .renew(row, workerId)
      .then((held) => {
        // The lease ran out (a long pause) and another worker took the job: running on would do it twice.
        if (!held && !signal.aborted) {
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
    await leases.remove(row, workerId);
  } catch (thrown) {
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    if (signal.aborted) {
      // Handed back on shutdown: this attempt does not count.
      await leases.requeue(row, workerId, { attempts: row.attempts - 1, run_at: nowIso() });
      return;
    }
    if (error instanceof DeferJobError) {
      const runAt = new Date(Date.now() + error.delayMs).toISOString();
      await leases.requeue(row, workerId, { attempts: row.attempts - 1, run_at: runAt });
      return;
    }
    const final = error instanceof PermanentJobError || row.attempts >= row.max_attempts;
    settings.logger.warn(
      { job_id: job.id, subject: row.subject, name, attempt: row.attempts, err: error.message, final },
      'job queue: attempt failed',
    );
    if (final) {
      await failForGood(row, job, error, {
        ...context,
        signal,
        stopHeartbeat: () => clearInterval(heartbeat),
      });
    } else {
      const wait = settings.backoffMs * 4 ** (row.attempts - 1);
      const runAt = new Date(Date.now() + wait).toISOString();
      await leases.requeue(row, workerId, { run_at: runAt, last_error: error.message });
    }
  } finally {
    clearInterval(heartbeat);
  }
}

/** Records a job's last failure on its row, then tells its failure handler, each retried while it cannot be written. */
async function failForGood(
  row: JobRow,
  job: Job,
  error: Error,
  context: AttemptContext & { signal: AbortSignal; stopHeartbeat: () => void },
): Promise<void> {
  const { leases, workerId, handlers, settings, signal } = context;
  const handler = handlers[job.name] as JobHandlers[JobName] | undefined;
  // Both writes wait out a database that is briefly away; the heartbeat keeps the lease until the first.
  const retried = (what: string) => (e: unknown, tries: number) => {
    if (tries === 1) settings.logger.warn({ err: e, job_id: job.id }, `job queue: ${what}; retrying`);
  };
  await recordWithRetries(
    () => leases.settle(row, workerId, { status: 'failed', last_error: error.message }),
    settings.failureRetry,
    signal,
    retried('could not record a failed job'),
  );
  // The job is no longer this worker's to hold (settling cleared its lease): a heartbeat would take the
  // cleared lease for one lost and cut the failure handler short.
  context.stopHeartbeat();
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
}
