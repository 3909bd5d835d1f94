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
      // The receivers listen on loopback, which webhooks may reach only when private addresses are allowed.
      testApp = await createTestApp(dialect, { WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'false' });
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
      // Ids and offsets past what a bigint column (and a JSON number) holds are refused, not sent to the database.
      const farId = await hooks('POST', `/${hook.id}/deliveries/${'9'.repeat(20)}/redeliver`);
      assert.equal(farId.statusCode, 400, farId.body);
      const farOffset = await hooks('GET', `/${hook.id}/deliveries?offset=${'9'.repeat(20)}`);
      assert.equal(farOffset.statusCode, 400, farOffset.body);
      assert.match(farOffset.json().error, /offset/);
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
        'events[1] "model.exploded" is not an event type; use model.created, model.progress, model.completed, model.failed, model.updated, model.deleted, model.version.created, model.version.completed, model.version.failed, thumbnail.updated, bindings.changed, annotation.created, annotation.updated, annotation.deleted, view.created, view.deleted, configuration.created, configuration.updated, configuration.deleted, configuration.applied',
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

/** Receiver URLs at addresses refused by default, in the spellings a URL may give them. */
const REFUSED_URLS = [
  // Loopback, and the spellings the WHATWG parser turns into 127.0.0.1.
  'http://127.0.0.1/hook',
  'https://127.0.0.1:8443/hook',
  'http://user:password@127.0.0.1/hook',
  'http://127.0.0.1.:8080/hook',
  'http://127.1/hook',
  'http://127.255.255.254/hook',
  'http://2130706433/hook',
  'http://0177.0.0.1/hook',
  'http://0x7f.1/hook',
  'http://0x7f000001/hook',
  'http://017700000001/hook',
  'http://localhost/hook',
  'http://LOCALHOST./hook',
  'http://api.localhost:3000/hook',
  // Unspecified, private, CGNAT, link-local (cloud metadata), benchmarking, multicast, reserved, broadcast.
  'http://0.0.0.0/hook',
  'http://0/hook',
  'http://10.0.0.1/hook',
  'http://10.255.255.255/hook',
  'http://172.16.0.1/hook',
  'http://172.31.255.254/hook',
  'http://192.168.1.1/hook',
  'http://0xc0a80101/hook',
  'http://100.64.0.1/hook',
  'http://100.127.255.254/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://198.18.0.1/hook',
  'http://224.0.0.1/hook',
  'http://239.255.255.250/hook',
  'http://240.0.0.1/hook',
  'http://255.255.255.255/hook',
  // IPv6 loopback, unspecified, unique local, link-local, site-local, multicast.
  'http://[::1]/hook',
  'http://[0:0:0:0:0:0:0:1]/hook',
  'http://[::]/hook',
  'http://[fc00::1]/hook',
  'http://[fd12:3456:789a::1]/hook',
  'http://[fe80::1]/hook',
  'http://[febf::1]/hook',
  'http://[fec0::1]/hook',
  'http://[ff02::1]/hook',
  // IPv4 inside IPv6: mapped, compatible, translated, NAT64, 6to4, Teredo.
  'http://[::ffff:127.0.0.1]/hook',
  'http://[::ffff:7f00:1]/hook',
  'http://[::ffff:10.0.0.1]/hook',
  'http://[0::ffff:192.168.0.1]/hook',
  'http://[::ffff:169.254.169.254]/hook',
  'http://[::127.0.0.1]/hook',
  'http://[::10.0.0.1]/hook',
  'http://[::8.8.8.8]/hook',
  'http://[::ffff:0:127.0.0.1]/hook',
  'http://[64:ff9b::127.0.0.1]/hook',
  'http://[64:ff9b::a9fe:a9fe]/hook',
  'http://[64:ff9b:1::1]/hook',
  'http://[2002:7f00:1::]/hook',
  'http://[2002:a00:1::1]/hook',
  'http://[2001::1]/hook',
  'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook',
];

/** Receiver URLs that pass creation: public addresses (in IPv6 forms too) and host names, judged on delivery. */
const ACCEPTED_URLS = [
  'https://93.184.216.34/hook',
  'http://172.32.0.1/hook',
  'http://[2606:4700::1111]/hook',
  'http://[::ffff:8.8.8.8]/hook',
  'http://[64:ff9b::808:808]/hook',
  'http://[2002:808:808::1]/hook',
  'https://hooks.example.com/hook',
];

for (const dialect of testDialects()) {
  void describe(`webhook receivers refused by default (${dialect})`, () => {
    let testApp: TestApp;
    const create = (url: string, app = testApp) =>
      app.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: app.auth,
        payload: { url, events: ['model.deleted'] },
      });
    before(async () => {
      testApp = await createTestApp(dialect);
    });
    after(() => testApp.close());

    void it(`answers 400 to ${REFUSED_URLS.length} private, loopback and link-local forms, checked without connecting`, async () => {
      assert.ok(REFUSED_URLS.length >= 40);
      for (const url of REFUSED_URLS) {
        const answer = await create(url);
        assert.equal(answer.statusCode, 400, `${url}: ${answer.body}`);
        assert.equal(
          answer.body,
          JSON.stringify({
            success: false,
            error: `url "${url}" is refused: the receiver has a private address, which WEBHOOK_REFUSE_PRIVATE_ADDRESSES refuses`,
          }),
        );
      }
      const listed = await testApp.app.inject({ method: 'GET', url: '/api/webhooks', headers: testApp.auth });
      assert.deepEqual(listed.json().data, [], 'nothing was stored');
    });

    void it('accepts public addresses and host names', async () => {
      for (const url of ACCEPTED_URLS) {
        const answer = await create(url);
        assert.equal(answer.statusCode, 201, `${url}: ${answer.body}`);
      }
    });

    void it('accepts a private address WEBHOOK_ALLOWED_PRIVATE_RANGES lists, and no other', async () => {
      const allowing = await createTestApp(dialect, { WEBHOOK_ALLOWED_PRIVATE_RANGES: '10.0.5.0/24,::1' });
      try {
        for (const url of [
          'http://10.0.5.7/hook',
          'http://[::1]:8080/hook',
          'http://[::ffff:10.0.5.9]/hook',
        ]) {
          assert.equal((await create(url, allowing)).statusCode, 201, url);
        }
        for (const url of ['http://10.0.6.1/hook', 'http://127.0.0.1/hook', 'http://localhost/hook']) {
          assert.equal((await create(url, allowing)).statusCode, 400, url);
        }
      } finally {
        await allowing.close();
      }
    });

    void it('delivers to a host name with the guard on when its addresses are allowed', async () => {
      // localhost resolves (through the system resolver) to loopback addresses, which this app allows explicitly.
      const allowing = await createTestApp(dialect, { WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1,::1' });
      const target = await startReceiver();
      try {
        allowing.startJobRunner(async () => Buffer.from('not rendered'));
        const url = target.url.replace('127.0.0.1', 'localhost');
        const created = await allowing.app.inject({
          method: 'POST',
          url: '/api/webhooks',
          headers: allowing.auth,
          payload: { url, events: ['model.completed'] },
        });
        assert.equal(created.statusCode, 201, created.body);
        const answer = await catalogApi(allowing.app, allowing.auth).upload(
          'named.glb',
          await twoPartGlb('shared-named'),
        );
        assert.equal(answer.status, 201, answer.text);
        const [request] = await target.waitFor(1, TIMEOUT_MS);
        assert.equal(JSON.parse(request!.body).data.model_id, answer.json.data.id);
      } finally {
        await allowing.close();
        await target.close();
      }
    });
  });
}
