import type { Db } from './database.ts';

/**
 * Raises the material generation inside a writing transaction (see the 2026-11-25 migration). It is the last
 * lock such a transaction takes, after the material and binding rows, so it adds no lock-order cycle.
 */
export async function raiseMaterialGeneration(trx: Db): Promise<void> {
  await trx
    .updateTable('material_generation')
    .set((eb) => ({ value: eb('value', '+', 1) }))
    .where('id', '=', 1)
    .execute();
}

/** The current material generation. */
export async function readMaterialGeneration(db: Db): Promise<number> {
  const row = await db
    .selectFrom('material_generation')
    .select('value')
    .where('id', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.value);
}
