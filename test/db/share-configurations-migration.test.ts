// The migration that lets a share link show configurations keeps the links made before it, as links without them,
// on both dialects; its reversal drops the flag and keeps the links.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as shareConfigurations from '../../src/db/migrations/2026-12-07-01-share-configurations.ts';
import { testDialects, useTestDatabase } from '../helpers/databases.ts';
import { insertBareModelRow } from '../helpers/model-row.ts';

const MODEL = '00000000-0000-4000-8000-0000000000d1';
const OLD_SHARE = '00000000-0000-4000-8000-0000000000d2';
const NEW_SHARE = '00000000-0000-4000-8000-0000000000d3';

for (const dialect of testDialects()) {
  void describe(`share configurations migration (${dialect})`, () => {
    const database = useTestDatabase(dialect);

    void it('keeps earlier links as links without configurations; reverting keeps the links', async () => {
      const { db } = database();
      await shareConfigurations.down(db);
      const now = new Date().toISOString();
      await insertBareModelRow(db, MODEL, 'Chair');
      const share = (id: string, secret: string) => ({
        id,
        model_id: MODEL,
        secret,
        secret_hash: `hash-${secret}`,
        annotations: 1,
        created_at: now,
      });
      await db
        .insertInto('model_shares')
        .values(share(OLD_SHARE, 'old') as never)
        .execute();

      await shareConfigurations.up(db);
      const kept = await db.selectFrom('model_shares').selectAll().execute();
      assert.equal(kept.length, 1);
      assert.equal(Number(kept[0]!.configurations), 0);
      assert.equal(Number(kept[0]!.annotations), 1);
      await db
        .insertInto('model_shares')
        .values({ ...share(NEW_SHARE, 'new'), configurations: 1 })
        .execute();
      const both = await db
        .selectFrom('model_shares')
        .select(['id', 'configurations'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        both.map((row) => [row.id, Number(row.configurations)]),
        [
          [OLD_SHARE, 0],
          [NEW_SHARE, 1],
        ],
      );

      await shareConfigurations.down(db);
      const left = await db.selectFrom('model_shares').selectAll().orderBy('id').execute();
      assert.deepEqual(
        left.map((row) => row.id),
        [OLD_SHARE, NEW_SHARE],
      );
      assert.equal('configurations' in left[0]!, false);
      await shareConfigurations.up(db);
    });
  });
}
