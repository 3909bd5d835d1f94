import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DatabaseHandle } from '../../src/db/create-db.ts';
import { createWebhookRepository } from '../../src/webhooks/repository.ts';
import { createTestDatabase, testDialects, type TestDatabase } from '../helpers/databases.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

for (const dialect of testDialects()) {
  void describe(`webhook delivery log pruning (${dialect})`, () => {
    let testDatabase: TestDatabase;
    let handle: DatabaseHandle;
    before(async () => {
      testDatabase = await createTestDatabase(dialect);
      handle = await testDatabase.open();
    });
    after(async () => {
      await handle.close();
      await testDatabase.dispose();
    });

    /** A webhook with deliveries of the given statuses and ages in days, oldest first; returns their ids. */
    async function webhookWith(deliveries: { status: string; ageDays: number }[]) {
      const webhooks = createWebhookRepository(handle);
      const hook = await webhooks.create({
        url: 'https://hooks.example.com/',
        events: ['model.created'],
        secret: 'x'.repeat(16),
      });
      const ids: number[] = [];
      for (const [index, each] of deliveries.entries()) {
        const created = await webhooks.createDelivery({
          webhook_id: hook.id,
          event_id: index + 1,
          event_type: 'model.created',
          body: '{}',
        });
        const at = new Date(Date.now() - each.ageDays * DAY_MS).toISOString();
        await handle.db
          .updateTable('webhook_deliveries')
          .set({ status: each.status, created_at: at, updated_at: at })
          .where('id', '=', created.id)
          .execute();
        ids.push(created.id);
      }
      return { hook, ids };
    }

    const kept = async (webhookId: string) =>
      (await createWebhookRepository(handle).deliveries(webhookId, { limit: 100, offset: 0 })).rows
        .map((row) => row.id)
        .sort((a, b) => a - b);

    void it('keeps the newest per webhook and nothing settled past the age, but every pending delivery', async () => {
      const busy = await webhookWith([
        { status: 'pending', ageDays: 50 }, // pending: kept however old and far down
        { status: 'failed', ageDays: 40 }, // too old and beyond the newest 3
        { status: 'delivered', ageDays: 5 }, // beyond the newest 3
        { status: 'delivered', ageDays: 4 }, // beyond the newest 3
        { status: 'failed', ageDays: 3 }, // newest 3
        { status: 'delivered', ageDays: 2 }, // newest 3
        { status: 'pending', ageDays: 1 }, // newest 3
      ]);
      const quiet = await webhookWith([
        { status: 'delivered', ageDays: 45 }, // too old though within its newest 3
        { status: 'delivered', ageDays: 10 }, // kept
      ]);
      const removed = await createWebhookRepository(handle).prune({
        keepPerWebhook: 3,
        maxAgeMs: 30 * DAY_MS,
      });
      assert.equal(removed, 4);
      const [pendingOld, , , , failed, delivered, pendingNew] = busy.ids;
      assert.deepEqual(await kept(busy.hook.id), [pendingOld, failed, delivered, pendingNew]);
      assert.deepEqual(await kept(quiet.hook.id), [quiet.ids[1]]);
      assert.equal(
        await createWebhookRepository(handle).prune({ keepPerWebhook: 3, maxAgeMs: 30 * DAY_MS }),
        0,
      );
    });
  });
}
