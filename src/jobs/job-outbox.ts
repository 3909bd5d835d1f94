import type { Db, JobOutboxRow } from '../db/database.ts';
import { nowIso } from '../db/timestamps.ts';

/** A job as written to the outbox. */
export interface OutboxJob {
  id: string;
  name: string;
  payload: unknown;
  subject: string | null;
  dedupeKey: string | null;
  maxAttempts: number;
  /** Not relayed before this time unless promoted. */
  runAt: Date;
}

/** Reads and writes the `job_outbox` table; every write may join the caller's transaction. */
export function createJobOutbox(db: Db) {
  return {
    /** Writes a job; when a row with the same dedupe key waits already, returns that row's id instead. */
    async add(job: OutboxJob, writer: Db = db): Promise<{ id: string; deduplicated: boolean }> {
      const inserted = await writer
        .insertInto('job_outbox')
        .values({
          id: job.id,
          name: job.name,
          payload: JSON.stringify(job.payload),
          subject: job.subject,
          dedupe_key: job.dedupeKey,
          max_attempts: job.maxAttempts,
          run_at: job.runAt.toISOString(),
          created_at: nowIso(),
        })
        .onConflict((oc) => oc.column('dedupe_key').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) return { id: inserted.id, deduplicated: false };
      const existing = await writer
        .selectFrom('job_outbox')
        .select('id')
        .where('dedupe_key', '=', job.dedupeKey ?? '')
        .executeTakeFirstOrThrow();
      return { id: existing.id, deduplicated: true };
    },

    /** The committed rows that are due, oldest first. */
    due(limit: number): Promise<JobOutboxRow[]> {
      return db
        .selectFrom('job_outbox')
        .selectAll()
        .where('run_at', '<=', nowIso())
        .orderBy('run_at')
        .orderBy('id')
        .limit(limit)
        .execute();
    },

    /** Makes a row due now; false when there is no such row (relayed already, or never written). */
    async makeDue(id: string): Promise<boolean> {
      const result = await db
        .updateTable('job_outbox')
        .set({ run_at: nowIso() })
        .where('id', '=', id)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    },

    /** One row, or undefined. */
    get(id: string): Promise<JobOutboxRow | undefined> {
      return db.selectFrom('job_outbox').selectAll().where('id', '=', id).executeTakeFirst();
    },

    /** Every row, oldest first (for inspection). */
    all(): Promise<JobOutboxRow[]> {
      return db.selectFrom('job_outbox').selectAll().orderBy('created_at').orderBy('id').execute();
    },

    /** Whether a job of this name about the subject waits here (due or held back). */
    async holds(subject: string, name: string): Promise<boolean> {
      const row = await db
        .selectFrom('job_outbox')
        .select('id')
        .where('subject', '=', subject)
        .where('name', '=', name)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** Removes a relayed row. */
    async remove(id: string): Promise<void> {
      await db.deleteFrom('job_outbox').where('id', '=', id).execute();
    },

    /** Removes the rows about a subject; returns how many. */
    async removeSubject(subject: string, writer: Db = db): Promise<number> {
      const result = await writer.deleteFrom('job_outbox').where('subject', '=', subject).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
