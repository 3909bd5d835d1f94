import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { insertNewBindings } from '../../src/materials/insert-new-bindings.ts';
import { createMaterialRepository } from '../../src/materials/repository.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../helpers/databases.ts';

const NOW = '2026-11-26T00:00:00.000Z';

void describe('insertNewBindings (postgres)', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let materialId: number;
  const ids = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`);
  const bound = async (prefix: string) =>
    (
      await sql<{ group_id: string; material_id: number }>`
        select group_id, material_id from material_bindings where group_id like ${`${prefix}-%`}
        order by group_id`.execute(handle.db)
    ).rows;

  before(async () => {
    testPostgresUrl();
    database = await createTestDatabase('postgres');
    handle = await database.open();
    materialId = (await createMaterialRepository(handle).create({ name: 'plain' })).id;
  });
  after(async () => {
    await handle.close();
    await database.dispose();
  });

  void it('inserts groups none of which is bound, in one statement', async () => {
    const groups = ids('new', 1_500).reverse();
    const inserted = await handle.db
      .transaction()
      .execute((trx) => insertNewBindings(trx, materialId, NOW, groups));
    assert.equal(inserted, true);
    const rows = await bound('new');
    assert.equal(rows.length, 1_500);
    assert.ok(rows.every((row) => Number(row.material_id) === materialId));
  });

  void it('inserts nothing and leaves the transaction usable when one group is bound already', async () => {
    const groups = [...ids('mixed', 1_200), 'new-00700'];
    const afterwards = await handle.db.transaction().execute(async (trx) => {
      const inserted = await insertNewBindings(trx, materialId, NOW, groups);
      // The transaction goes on after the rolled-back attempt: a failed statement outside a savepoint would have
      // aborted it ("current transaction is aborted").
      const { rows } = await sql<{ count: string }>`
        select count(*) as count from material_bindings where group_id like 'mixed-%'`.execute(trx);
      return { inserted, count: Number(rows[0]!.count) };
    });
    assert.deepEqual(afterwards, { inserted: false, count: 0 });
    assert.deepEqual(await bound('mixed'), []);
  });

  void it('passes on any other failure', async () => {
    // PostgreSQL text cannot hold a NUL byte (the API refuses one before it gets here).
    await assert.rejects(
      handle.db
        .transaction()
        .execute((trx) => insertNewBindings(trx, materialId, NOW, [...ids('nul', 999), 'nul-\u0000'])),
      (error: { code?: string }) => error.code === '22021',
    );
    assert.deepEqual(await bound('nul'), []);
  });
});
