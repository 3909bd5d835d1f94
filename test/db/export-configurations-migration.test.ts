// The migration that names a configuration in an export's key keeps the exports cached before it (as exports of no
// configuration) on both dialects, and its reversal drops only the exports of a configuration.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as exportConfigurations from '../../src/db/migrations/2026-12-06-01-export-configurations.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { insertBareModelRow } from '../helpers/model-row.ts';

const MODEL = '00000000-0000-4000-8000-0000000000c1';
const CONFIGURATION = '00000000-0000-4000-8000-0000000000c2';

for (const dialect of testDialects()) {
  void describe(`export configurations migration (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('keeps cached exports, then tells configurations apart; reverting drops only theirs', async () => {
      const { db } = database();
      await exportConfigurations.down(db);
      const now = new Date().toISOString();
      await insertBareModelRow(db, MODEL, 'Chair');
      const key = { model_id: MODEL, format: 'glb', lod: 0, materials: 'bound', unit: 'meter' };
      const file = { status: 'ready', blob_key: 'kept.glb', size: 10, created_at: now, updated_at: now };
      await db
        .insertInto('model_exports')
        .values({ ...key, fingerprint: 'old', ...file } as never)
        .execute();

      await exportConfigurations.up(db);
      const kept = await db.selectFrom('model_exports').selectAll().execute();
      assert.equal(kept.length, 1);
      assert.equal(kept[0].configuration_id, '');
      assert.equal(kept[0].blob_key, 'kept.glb');
      assert.equal(Number(kept[0].size), 10);
      // The same export of a configuration is another row; the key still refuses a second row of one export.
      const configured = { ...key, configuration_id: CONFIGURATION, fingerprint: 'new', ...file };
      await db.insertInto('model_exports').values(configured).execute();
      await assert.rejects(db.insertInto('model_exports').values(configured).execute(), /unique|duplicate/i);

      await exportConfigurations.down(db);
      const left = await db.selectFrom('model_exports').select(['fingerprint', 'blob_key']).execute();
      assert.deepEqual(left, [{ fingerprint: 'old', blob_key: 'kept.glb' }]);
      await exportConfigurations.up(db);
    });
  });
}
