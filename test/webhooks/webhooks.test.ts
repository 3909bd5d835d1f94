import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { startReceiver, type Receiver } from './receiver.ts';

const TIMEOUT_MS = 120_000;

/** Checks a delivery's signature as a receiver would (the README's snippet): true when it matches. */
function validSignature(secret: string, header: string, body: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

for (const dialect of testDialects()) {
  void describe(`webhooks (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    const receivers: Receiver[] = [];
    const receiver = async (statuses?: number[]) => {
      const started = await startReceiver(statuses);
      receivers.push(started);
      return started;
    };
    const hooks = (method: string, url: string, payload?: object, headers = testApp.auth) =>
      testApp.app.inject({ method: method as 'GET', url: `/api/webhooks${url}`, headers, payload });
    /**
     * The webhook's newest delivery once it is no longer pending. A receiver has a request before the delivery job
     * has its answer and records it; the reads sleep in between, so on SQLite (where an injected read never waits
     * on a socket) that answer is let in.
     */
    const settledDelivery = async (hookId: string) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const delivery = (await hooks('GET', `/${hookId}/deliveries`)).json().data[0];
        if (delivery.status !== 'pending' || Date.now() > deadline) return delivery;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    const upload = async (name: string) => {
      const answer = await api.upload(`${name}.glb`, await twoPartGlb(`shared-${name}`));
      assert.equal(answer.status, 201, answer.text);
      return answer.json.data.id as string;
    };

    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner(async () => Buffer.from('not rendered'));
    });
    after(async () => {
      await testApp.close();
      await Promise.all(receivers.map((each) => each.close()));
    });

    void it('posts model.completed signed with the secret, and logs the delivery', async () => {
      const target = await receiver();
      const secret = 'a-secret-of-sufficient-length';
      const created = await hooks('POST', '', { url: target.url, events: ['model.completed'], secret });
      assert.equal(created.statusCode, 201, created.body);
      const hook = created.json().data;
      assert.equal(hook.secret, secret);
      assert.deepEqual(hook.events, ['model.completed']);

      const id = await upload('signed');
      const [request] = await target.waitFor(1, TIMEOUT_MS);
      const body = JSON.parse(request!.body);
      assert.equal(body.type, 'model.completed');
      assert.equal(body.data.model_id, id);
      assert.equal(body.data.status, 'completed');
      assert.equal(request!.headers['x-vitrine-event'], 'model.completed');
      assert.equal(request!.headers['content-type'], 'application/json');
      const signature = String(request!.headers['x-vitrine-signature']);
      assert.match(signature, /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.ok(validSignature(secret, signature, request!.body), 'the signature verifies');
      assert.ok(!validSignature('another-secret-entirely', signature, request!.body));
      const t = Number(/t=(\d+)/.exec(signature)![1]);
      assert.ok(Math.abs(Date.now() / 1000 - t) < 60, 'signed now');

      const delivery = await settledDelivery(hook.id);
      assert.deepEqual(
        { ...delivery, id: 0, created_at: '', updated_at: '' },
        {
          id: 0,
          webhook_id: hook.id,
          event_id: body.id,
          event_type: 'model.completed',
          status: 'delivered',
          attempts: 1,
          last_status_code: 200,
          last_error: null,
          created_at: '',
          updated_at: '',
        },
      );
      const log = await hooks('GET', `/${hook.id}/deliveries`);
      assert.equal(log.statusCode, 200);
      assert.equal(log.json().meta.total, 1);

      // The secret is never shown again.
      const listed = await hooks('GET', '');
      assert.ok(!listed.body.includes(secret));
      assert.deepEqual(Object.keys((await hooks('GET', `/${hook.id}`)).json().data).sort(), [
        'created_at',
        'events',
        'id',
        'url',
      ]);

      // Redelivery: a new delivery with the same body, signed again.
      const again = await hooks('POST', `/${hook.id}/deliveries/${delivery.id}/redeliver`);
      assert.equal(again.statusCode, 202, again.body);
      const [, second] = await target.waitFor(2);
      assert.equal(second!.body, request!.body);
      assert.ok(validSignature(secret, String(second!.headers['x-vitrine-signature']), second!.body));
      assert.notEqual(second!.headers['x-vitrine-delivery'], request!.headers['x-vitrine-delivery']);
      assert.equal((await hooks('GET', `/${hook.id}/deliveries`)).json().meta.total, 2);
      await hooks('DELETE', `/${hook.id}`);
    });

    void it('retries a receiver that answers 500 twice and delivers on the third attempt', async () => {
      const target = await receiver([500, 500, 204]);
      const hook = (await hooks('POST', '', { url: target.url, events: ['model.updated'] })).json().data;
      assert.match(hook.secret, /^whsec_[\w-]{43}$/, 'a generated secret');
      const id = await upload('flaky');
      await api.call('PATCH', `/${id}`, { description: 'retried' });
      const requests = await target.waitFor(3, 30_000);
      assert.deepEqual(
        requests.map((each) => JSON.parse(each.body).id),
        Array(3).fill(JSON.parse(requests[0]!.body).id),
        'the same event each time',
      );
      const delivery = await settledDelivery(hook.id);
      assert.equal(delivery.status, 'delivered');
      assert.equal(delivery.attempts, 3);
      assert.equal(delivery.last_status_code, 204);
      await hooks('DELETE', `/${hook.id}`);
    });

    void it('sends nothing more to a deleted webhook', async () => {
      const deleted = await receiver();
      const kept = await receiver();
      const doomed = (await hooks('POST', '', { url: deleted.url, events: ['model.updated'] })).json().data;
      const live = (await hooks('POST', '', { url: kept.url, events: ['model.updated'] })).json().data;
      const id = await upload('after-delete');
      const removed = await hooks('DELETE', `/${doomed.id}`);
      assert.equal(removed.statusCode, 200);
      assert.equal(removed.body, JSON.stringify({ success: true, message: 'Webhook deleted' }));
      assert.equal((await hooks('DELETE', `/${doomed.id}`)).statusCode, 404);
      await api.call('PATCH', `/${id}`, { description: 'changed' });
      // The live webhook's delivery of the same event shows the event went out; give the other time to be wrong.
      await kept.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(deleted.received.length, 0);
      assert.equal((await hooks('GET', `/${doomed.id}/deliveries`)).statusCode, 404);
      await hooks('DELETE', `/${live.id}`);
    });

    void it('answers 400 naming a bad URL or event name, 403 to read tokens', async () => {
      const refused = async (payload: object, error: string) => {
        const answer = await hooks('POST', '', payload);
        assert.equal(answer.statusCode, 400, answer.body);
        assert.equal(answer.body, JSON.stringify({ success: false, error }));
      };
      await refused(
        { url: 'ftp://example.com/hook', events: ['model.completed'] },
        'url "ftp://example.com/hook" must be an http:// or https:// URL',
      );
      await refused({ url: 'not a url', events: ['model.completed'] }, 'url "not a url" is not a valid URL');
      await refused(
        { url: 'https://example.com/hook', events: ['model.completed', 'model.exploded'] },
        'events[1] "model.exploded" is not an event type; use model.created, model.progress, model.completed, model.failed, model.updated, model.deleted, thumbnail.updated, bindings.changed',
      );
      await refused({ url: 'https://example.com/hook', events: [] }, 'events must hold at least 1 item');
      await refused(
        { url: 'https://example.com/hook', events: ['model.created'], secret: 'short' },
        'secret must be a string of 16 to 256 characters',
      );

      const token = await testApp.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: testApp.auth,
        payload: { name: 'reader', scope: 'read' },
      });
      const read = { 'x-api-token': token.json().data.token as string };
      const denied = await hooks(
        'POST',
        '',
        { url: 'https://example.com/hook', events: ['model.created'] },
        read,
      );
      assert.equal(denied.statusCode, 403);
      assert.equal((await hooks('GET', '', undefined, read)).statusCode, 200);
      assert.equal((await hooks('GET', '', undefined, {})).statusCode, 401);
    });
  });
}

void describe('webhooks with WEBHOOK_REFUSE_PRIVATE_ADDRESSES', () => {
  let testApp: TestApp;
  before(async () => {
    testApp = await createTestApp('sqlite', { WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'true' });
  });
  after(() => testApp.close());

  void it('refuses receivers at loopback and private addresses', async () => {
    for (const url of [
      'http://127.0.0.1:9/hook',
      'http://localhost/hook',
      'http://10.1.2.3/',
      'http://[::1]/',
    ]) {
      const answer = await testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: testApp.auth,
        payload: { url, events: ['model.created'] },
      });
      assert.equal(answer.statusCode, 400, url);
      assert.match(answer.json().error, /private address, which WEBHOOK_REFUSE_PRIVATE_ADDRESSES refuses/);
    }
  });
});
