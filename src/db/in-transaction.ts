import type { Transaction } from 'kysely';
import type { Database, Db } from './database.ts';

/**
 * Runs `work` in a transaction: the caller's when `db` already is one (so a repository method can join a larger
 * unit of work), else a new one.
 */
export function inTransaction<T>(db: Db, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}
