// A completed model's row with only the columns every schema since the models table has, for migration tests that
// run a database at an earlier migration (the row layer of src/ knows the latest schema only).
import type { Db } from '../../src/db/database.ts';

/**
 * Inserts a completed GLB model `id` named `name` with no levels, as any schema version can hold it; `columns`
 * replace or add columns the schema under test has (a `current_version`, a pending IFC upload's).
 */
export async function insertBareModelRow(
  db: Db,
  id: string,
  name: string,
  columns: Record<string, unknown> = {},
): Promise<void> {
  const now = new Date().toISOString();
  await db
    .insertInto('models')
    .values({
      id,
      name,
      original_filename: 'a.glb',
      format: 'glb',
      file_size: 1,
      status: 'completed',
      progress: 100,
      source_key: `models/${id}/source.glb`,
      lods: '[]',
      tags: '[]',
      created_at: now,
      updated_at: now,
      ...columns,
    } as never)
    .execute();
}
