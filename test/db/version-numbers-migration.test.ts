// The migration that keeps deleted version numbers from being given again starts each model from the highest
// number it has given: its highest version, its current one, or one a share link pins whose version is gone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as versionNumbers from '../../src/db/migrations/2026-12-03-01-version-numbers-kept.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { insertBareModelRow } from '../helpers/model-row.ts';

const PINNED = '00000000-0000-4000-8000-0000000000b1';
const VERSIONED = '00000000-0000-4000-8000-0000000000b2';
const PLAIN = '00000000-0000-4000-8000-0000000000b3';

for (const dialect of testDialects()) {
  void describe(`version numbers migration (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('starts each model from the highest number it gave', async () => {
      const { db } = database();
      await versionNumbers.down(db);
      const now = new Date().toISOString();
      for (const [id, current] of [
        [PINNED, 1],
        [VERSIONED, 3],
        [PLAIN, 1],
      ] as const) {
        await insertBareModelRow(db, id, id, { current_version: current });
      }
      const version = (modelId: string, number: number) => ({
        model_id: modelId,
        number,
        original_filename: 'a.glb',
        format: 'glb',
        file_size: 1,
        source_key: `models/${modelId}/v${number}/source.glb`,
        status: 'completed',
        progress: 100,
        lods: '[]',
        created_at: now,
        updated_at: now,
      });
      // Version 4 of the first model was deleted; a link still pins it.
      await db
        .insertInto('model_versions')
        .values([
          version(PINNED, 1),
          version(VERSIONED, 1),
          version(VERSIONED, 3),
          version(PLAIN, 1),
        ] as never)
        .execute();
      await db
        .insertInto('model_shares')
        .values({
          id: '00000000-0000-4000-8000-0000000000c1',
          model_id: PINNED,
          secret: 'kept-secret',
          secret_hash: 'a'.repeat(64),
          version: 4,
          created_at: now,
        } as never)
        .execute();

      await versionNumbers.up(db);
      const rows = await db.selectFrom('models').select(['id', 'last_version']).orderBy('id').execute();
      assert.deepEqual(rows, [
        { id: PINNED, last_version: 4 },
        { id: VERSIONED, last_version: 3 },
        { id: PLAIN, last_version: 1 },
      ]);
    });
  });
}
