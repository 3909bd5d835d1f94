import type { Kysely } from 'kysely';

/**
 * Stores a material row of `name` straight in the table, every column the table requires given and nothing else
 * (no folded copy): a row as a migration finds it, for the migrations' tests.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the table as the migration sees it
export async function insertRawMaterial(db: Kysely<any>, name: string): Promise<void> {
  const now = new Date().toISOString();
  await db
    .insertInto('materials')
    .values({
      name,
      ...Object.fromEntries(
        ['diffuse', 'specular', 'ambient'].flatMap((colour) =>
          ['r', 'g', 'b'].map((channel) => [`${colour}_${channel}`, 0.5]),
        ),
      ),
      alpha: 1,
      shininess: 32,
      metallic: 0,
      roughness: 0.5,
      reflectance: 0.5,
      created_at: now,
      updated_at: now,
    })
    .execute();
}
