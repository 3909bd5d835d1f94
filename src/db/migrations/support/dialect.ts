import { PostgresAdapter, type Kysely } from 'kysely';

/** True when a migration runs on PostgreSQL; the few column types that differ branch on it. */
export function isPostgres(db: Kysely<unknown>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
