// Whether a configuration a lookup names still exists (a kept configured reply is good only while it does).
import type { Db } from '../db/database.ts';

/** Whether a configuration exists. */
export async function configurationExists(db: Db, configurationId: string): Promise<boolean> {
  const row = await db
    .selectFrom('configurations')
    .select('id')
    .where('id', '=', configurationId)
    .executeTakeFirst();
  return row !== undefined;
}
