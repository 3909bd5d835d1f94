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

/** Rounds of the comparison; the median of each kind is compared, so a moment of load elsewhere decides nothing. */
const ROUNDS = 3;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Converts five uploads at once without webhooks, then five with a webhook whose receiver never answers (for every
 * event type) beside a healthy one, three times in turn; checks the median batch with the hanging receiver takes
 * less than twice the median without, that the hanging receiver never holds more than its share of attempts, and
 * that the healthy receiver still gets every delivery at once.
 */
export async function checkHangingReceiverStallsNothing(
  testApp: TestApp,
): Promise<{ withoutWebhooksMs: number[]; withHangingReceiverMs: number[]; attemptsAtOnce: number }> {
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
  const hooks = (method: 'POST' | 'DELETE', url: string, payload?: object) =>
    testApp.app.inject({ method, url: `/api/webhooks${url}`, headers: testApp.auth, payload });
  // A first batch warms the conversion thread, so the measured ones start alike.
  await convertBatch();

  const hanging = await startHangingReceiver();
  const healthy = await startReceiver();
  try {
    const withoutWebhooks: number[] = [];
    const withHangingReceiver: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      withoutWebhooks.push(await convertBatch());
      const ids: string[] = [];
      for (const [url, events] of [
        [hanging.url, EVENT_TYPES],
        [healthy.url, ['model.completed']],
      ] as const) {
        const created = await hooks('POST', '', { url, events });
        assert.equal(created.statusCode, 201, created.body);
        ids.push(created.json().data.id as string);
      }
      withHangingReceiver.push(await convertBatch());
      // The healthy receiver is not kept waiting behind the hanging one: every completion arrives in moments.
      await healthy.waitFor(UPLOADS * round, 5_000);
      for (const id of ids) assert.equal((await hooks('DELETE', `/${id}`)).statusCode, 200);
    }

    assert.ok(hanging.requests > 0, 'the hanging receiver was tried');
    assert.ok(
      median(withHangingReceiver) < 2 * median(withoutWebhooks),
      `${UPLOADS} uploads took ${withHangingReceiver.join(', ')} ms with a hanging receiver, ${withoutWebhooks.join(', ')} ms without`,
    );
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
