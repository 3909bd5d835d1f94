import assert from 'node:assert/strict';
import { EVENT_TYPES } from '../../src/events/event-types.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import type { TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { startHangingReceiver, startReceiver } from './receiver.ts';

/** Uploads converted while the receiver hangs. */
const UPLOADS = 5;

/**
 * The settings the scenario's app is built with: loopback receivers allowed, and a delivery timeout far longer than
 * the scenario, so a conversion or a delivery that waited for the hanging receiver could not finish in it.
 */
export const HANGING_RECEIVER_ENV = {
  WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'false',
  WEBHOOK_TIMEOUT_SECONDS: '300',
};

/**
 * Subscribes a receiver that never answers (to every event type) beside a healthy one, converts five uploads at
 * once, and checks that all five completed and the healthy receiver got every completion while the hanging
 * receiver still held its requests open, and that it never held more than its share of delivery slots.
 */
export async function checkHangingReceiverStallsNothing(
  testApp: TestApp,
): Promise<{ hangingRequests: number; openWhenDone: number; attemptsAtOnce: number }> {
  const api = catalogApi(testApp.app, testApp.auth);
  testApp.startJobRunner(async () => Buffer.from('not rendered'));
  const hooks = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
    testApp.app.inject({ method, url: `/api/webhooks${url}`, headers: testApp.auth, payload });

  const hanging = await startHangingReceiver();
  const healthy = await startReceiver();
  try {
    const ids: string[] = [];
    for (const [url, events] of [
      [hanging.url, EVENT_TYPES],
      [healthy.url, ['model.completed']],
    ] as const) {
      const created = await hooks('POST', '', { url, events });
      assert.equal(created.statusCode, 201, created.body);
      ids.push(created.json().data.id as string);
    }
    await Promise.all(
      Array.from({ length: UPLOADS }, async (_, n) => {
        const uploaded = await api.upload(`hanging-${n}.glb`, await twoPartGlb(`hanging-${n}`));
        assert.equal(uploaded.status, 201, uploaded.text);
        await waitForStatus(testApp.app, uploaded.json.data.id as string, ['completed'], 120_000);
      }),
    );
    await healthy.waitFor(UPLOADS, 60_000);
    // Nothing the hanging receiver was sent has been answered or timed out yet (the timeout is 300 s), so every
    // conversion and every healthy delivery above finished without waiting for it.
    const openWhenDone = hanging.openNow;
    assert.ok(hanging.requests > 0, 'the hanging receiver was tried');
    assert.equal(openWhenDone, Math.min(hanging.requests, testApp.config.webhookReceiverConcurrency));
    assert.ok(
      hanging.mostAtOnce <= testApp.config.webhookReceiverConcurrency,
      `${hanging.mostAtOnce} requests at once`,
    );
    for (const id of ids) assert.equal((await hooks('DELETE', `/${id}`)).statusCode, 200);
    return { hangingRequests: hanging.requests, openWhenDone, attemptsAtOnce: hanging.mostAtOnce };
  } finally {
    await hanging.close();
    await healthy.close();
  }
}
