import assert from 'node:assert/strict';
import { EVENT_TYPES } from '../../src/events/event-types.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { startHangingReceiver, startReceiver } from './receiver.ts';

/** Uploads this many models at once and how long until all are converted. */
const UPLOADS = 5;

/** The settings the scenario's app is built with: loopback receivers allowed, the default timeout and slots. */
export const HANGING_RECEIVER_ENV = { WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'false' };

/**
 * Converts five uploads without webhooks, then five with a webhook whose receiver never answers (for every event
 * type) beside a healthy one, and checks the second batch takes less than twice the first, that the hanging
 * receiver never holds more than its share of attempts, and that the healthy receiver still gets its deliveries.
 */
export async function checkHangingReceiverStallsNothing(
  testApp: TestApp,
): Promise<{ withoutWebhooksMs: number; withHangingReceiverMs: number; attemptsAtOnce: number }> {
  const api = catalogApi(testApp.app, testApp.auth);
  testApp.startJobRunner(async () => Buffer.from('not rendered'));
  let batch = 0;
  const convertBatch = async () => {
    const started = Date.now();
    batch++;
    await Promise.all(
      Array.from({ length: UPLOADS }, async (_, n) => {
        const uploaded = await api.upload(`b${batch}-${n}.glb`, await twoPartGlb(`shared-${batch}-${n}`));
        assert.equal(uploaded.status, 201, uploaded.text);
        await waitForStatus(testApp.app, uploaded.json.data.id as string, ['completed'], 120_000);
      }),
    );
    return Date.now() - started;
  };
  // A first batch warms the conversion thread, so the measured ones start alike.
  await convertBatch();
  const withoutWebhooks = await convertBatch();

  const hanging = await startHangingReceiver();
  const healthy = await startReceiver();
  try {
    const hook = async (url: string, events: readonly string[]) => {
      const answer = await testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: testApp.auth,
        payload: { url, events },
      });
      assert.equal(answer.statusCode, 201, answer.body);
    };
    await hook(hanging.url, EVENT_TYPES);
    await hook(healthy.url, ['model.completed']);
    const withHangingReceiver = await convertBatch();

    assert.ok(hanging.requests > 0, 'the hanging receiver was tried');
    assert.ok(
      withHangingReceiver < 2 * withoutWebhooks,
      `${UPLOADS} uploads took ${withHangingReceiver} ms with a hanging receiver, ${withoutWebhooks} ms without`,
    );
    // The healthy receiver is not kept waiting behind the hanging one: every completion arrives in moments.
    await healthy.waitFor(UPLOADS, 5_000);
    assert.ok(
      hanging.mostAtOnce <= testApp.config.webhookReceiverConcurrency,
      `${hanging.mostAtOnce} at once`,
    );
    return {
      withoutWebhooksMs: withoutWebhooks,
      withHangingReceiverMs: withHangingReceiver,
      attemptsAtOnce: hanging.mostAtOnce,
    };
  } finally {
    await hanging.close();
    await healthy.close();
  }
}
