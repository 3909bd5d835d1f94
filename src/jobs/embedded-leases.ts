// The rows of the embedded queue as a worker holds them: claiming a due job under a lease, renewing the lease,
// and letting the row go (done, failed, or back to `queued`). Only the worker named in `locked_by` may.
import { sql } from 'kysely';
import type { DatabaseHandle } from '../db/create-db.ts';
import type { JobRow } from '../db/database.ts';
import { nowIso } from '../db/timestamps.ts';
import type { JobName } from './job-types.ts';

/** A worker's hold on the rows of the jobs table. */
export interface EmbeddedLeases {
  /** Takes the next due job of `names` (or one whose lease ran out), or undefined when none is due. */
  claim(workerId: string, names: readonly JobName[]): Promise<JobRow | undefined>;
  /** Extends the lease of a held job; false when the worker no longer holds it. */
  renew(row: JobRow, workerId: string): Promise<boolean>;
  /** Removes a job that succeeded, if the worker still holds it. */
  remove(row: JobRow, workerId: string): Promise<void>;
  /** Writes `values` and clears the lease, if the worker still holds the job. */
  settle(row: JobRow, workerId: string, values: Record<string, unknown>): Promise<void>;
  /** Puts a held job back in the queue with `values` (its next `run_at`, say). */
  requeue(row: JobRow, workerId: string, values: Record<string, unknown>): Promise<void>;
}

/** The leases of the embedded queue over the service's database; a claim lasts `leaseMs` unless renewed. */
export function createEmbeddedLeases(handle: DatabaseHandle, leaseMs: number): EmbeddedLeases {
  const { db, dialect } = handle;
  const leaseEnd = () => new Date(Date.now() + leaseMs).toISOString();

  async function settle(row: JobRow, workerId: string, values: Record<string, unknown>): Promise<void> {
    await db
      .updateTable('jobs')
      .set({ ...values, lease_until: null, locked_by: null, updated_at: nowIso() })
      .where('id', '=', row.id)
      .where('locked_by', '=', workerId)
      .execute();
  }

  return {
    async claim(workerId, names) {
      const now = nowIso();
      const leaseUntil = leaseEnd();
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
    },

    async renew(row, workerId) {
      const result = await db
        .updateTable('jobs')
        .set({ lease_until: leaseEnd() })
        .where('id', '=', row.id)
        .where('locked_by', '=', workerId)
        .executeTakeFirst();
      return result.numUpdatedRows !== 0n;
    },

    async remove(row, workerId) {
      await db.deleteFrom('jobs').where('id', '=', row.id).where('locked_by', '=', workerId).execute();
    },

    settle,

    // Back to `queued` (a retry or a hand-back). A copy with the same dedupe key may have been queued while this job
    // ran; the unique index then refuses a second queued row, and the queued copy already covers this work.
    async requeue(row, workerId, values) {
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
    },
  };
}
