import { sql } from 'kysely';
import type { DialectName } from './create-db.ts';
import type { Db } from './database.ts';

/**
 * Raises the material generation inside a writing transaction on SQLite, where writers take turns anyway (see the
 * 2026-11-25 migration). Does nothing on PostgreSQL: there {@link raiseGenerationAfterCommit} raises it.
 */
export async function raiseGenerationWithin(trx: Db, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') return;
  await trx
    .updateTable('material_generation')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

/**
 * Raises the material generation on PostgreSQL once a writing transaction has committed, before its request is
 * answered. A lookup reads the generation before it takes its snapshot, so a reply kept under the old value may
 * hold the change already (harmless) but a reply kept under the new one always does. Does nothing on SQLite.
 */
export async function raiseGenerationAfterCommit(db: Db, dialect: DialectName): Promise<void> {
  if (dialect === 'postgres') await sql`select nextval('material_generation')`.execute(db);
}

/** The current material generation. */
export async function readMaterialGeneration(db: Db, dialect: DialectName): Promise<number> {
  if (dialect === 'postgres') {
    const { rows } = await sql<{
      value: string;
    }>`select last_value as value from material_generation`.execute(db);
    return Number(rows[0]!.value);
  }
  const row = await db
    .selectFrom('material_generation')
    .select('value')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.value);
}
