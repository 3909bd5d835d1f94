import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { VitrineEvent } from '../../src/events/event-types.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { openEventClient, type EventClient } from '../helpers/event-client.ts';
import { createTestApp, TEST_TOKEN, type TestApp } from '../helpers/test-app.ts';

const TIMEOUT_MS = 120_000;

/** The types of the events about one model, in the order received. */
const typesOf = (events: VitrineEvent[], modelId: string) =>
  events.filter((event) => (event.data as { model_id?: string }).model_id === modelId).map((e) => e.type);

for (const dialect of testDialects()) {
  void describe(`event stream (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let baseUrl: string;
    const clients: EventClient[] = [];
    const open = async (path: string, headers: Record<string, string> = testApp.auth) => {
      const client = await openEventClient(`${baseUrl}${path}`, headers);
      clients.push(client);
      return client;
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
      baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
    });
    after(async () => {
      for (const client of clients) client.close();
      await testApp.close();
    });

    void it('shows an upload as created → progress → completed, and Last-Event-ID replays what was missed', async () => {
      const stream = await open('/api/events');
      assert.equal(stream.status, 200);
      assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
      const id = await upload('first');
      const completed = await stream.waitFor(
        (event) => event.type === 'model.completed' && (event.data as { model_id: string }).model_id === id,
        TIMEOUT_MS,
      );
      const types = typesOf(stream.events, id);
      assert.equal(types[0], 'model.created');
      const firstProgress = types.indexOf('model.progress');
      assert.ok(firstProgress > 0, `a progress event before completion: ${types.join(', ')}`);
      assert.equal(types.at(-1), 'model.completed');
      assert.deepEqual(completed.data, {
        model_id: id,
        name: 'first',
        status: 'completed',
        progress: 100,
        error: null,
      });
      const progress = stream.events.find((event) => event.type === 'model.progress')!;
      assert.equal((progress.data as { status: string }).status, 'processing');
      const ids = stream.events.map((event) => event.id);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => a - b),
        'ids grow',
      );
      assert.equal(new Set(ids).size, ids.length, 'ids are unique');

      // A client that saw only `model.created` reconnects: everything after it is replayed, in order.
      const created = stream.events.find((event) => event.type === 'model.created')!;
      const missed = stream.events.filter((event) => event.id > created.id && event.id <= completed.id);
      const resumed = await open('/api/events', { ...testApp.auth, 'last-event-id': String(created.id) });
      await resumed.waitFor((event) => event.id === completed.id, 10_000);
      assert.deepEqual(
        resumed.events.filter((event) => event.id <= completed.id),
        missed,
      );
      // The same with the token and the last id in the query, as a browser's first EventSource connection sends them.
      const byQuery = await open(
        `/api/events?token=${TEST_TOKEN}&last_event_id=${created.id}&model_id=${id}`,
        {},
      );
      await byQuery.waitFor((event) => event.id === completed.id, 10_000);
      assert.deepEqual(
        byQuery.events.map((event) => event.id),
        missed.filter((event) => typesOf([event], id).length === 1).map((event) => event.id),
      );
    });

    void it('filters by model and reports edits, thumbnails, bindings and deletes', async () => {
      const id = await upload('second');
      const other = await upload('third');
      // From the start of the log, so nothing about the model is missed however fast it converts.
      const mine = await open(`/api/events?model_id=${id}&last_event_id=0`);
      const all = await open('/api/events');
      await all.waitFor(
        (e) => e.type === 'model.completed' && (e.data as { model_id: string }).model_id === id,
        TIMEOUT_MS,
      );
      await all.waitFor(
        (e) => e.type === 'model.completed' && (e.data as { model_id: string }).model_id === other,
        TIMEOUT_MS,
      );

      const patched = await api.call('PATCH', `/${id}`, { name: 'Renamed' });
      assert.equal(patched.status, 200);
      const updated = await mine.waitFor((event) => event.type === 'model.updated');
      assert.equal((updated.data as { name: string }).name, 'Renamed');

      const material = await testApp.app.inject({
        method: 'POST',
        url: '/api/v1/materials',
        headers: testApp.auth,
        payload: { name: 'Red' },
      });
      const materialId = material.json().data.id as number;
      await testApp.app.inject({
        method: 'POST',
        url: `/api/v1/materials/${materialId}/bindings`,
        headers: testApp.auth,
        payload: { group_ids: [`${id}:1`] },
      });
      const bindings = await mine.waitFor((event) => event.type === 'bindings.changed');
      assert.deepEqual(bindings.data, {
        material_id: materialId,
        group_ids: [`${id}:1`],
        bound: true,
        model_ids: [id],
      });

      // The conversion announced its own thumbnail; only one after this point is the regenerated one.
      await mine.waitFor((event) => event.type === 'model.completed', TIMEOUT_MS);
      const beforeRender = Math.max(...mine.events.map((event) => event.id));
      const thumbnail = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${id}/regenerate-thumbnail`,
        headers: testApp.auth,
      });
      assert.equal(thumbnail.statusCode, 200);
      await mine.waitFor(
        (event) => event.type === 'thumbnail.updated' && event.id > beforeRender,
        TIMEOUT_MS,
      );

      assert.equal((await api.call('DELETE', `/${id}`)).status, 200);
      await mine.waitFor((event) => event.type === 'model.deleted');
      const foreign = mine.events.filter((event) => typesOf([event], id).length === 0);
      assert.deepEqual(
        foreign.filter((event) => !(event.data as { model_ids?: string[] }).model_ids?.includes(id)),
        [],
        'nothing about other models',
      );
      assert.ok(all.events.some((event) => typesOf([event], other).length === 1));
    });

    void it('takes read tokens, refuses a missing token, a bad Last-Event-ID and a bad model id in the catalog envelope', async () => {
      const missing = await open('/api/events', {});
      assert.equal(missing.status, 401);
      assert.equal(missing.body, JSON.stringify({ success: false, error: 'missing API token' }));
      const wrong = await open('/api/events?token=not-the-token', {});
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body, JSON.stringify({ success: false, error: 'invalid API token' }));
      const bad = await open('/api/events', { ...testApp.auth, 'last-event-id': 'yesterday' });
      assert.equal(bad.status, 400);
      assert.equal(bad.body, JSON.stringify({ success: false, error: 'Last-Event-ID must be an event id' }));
      const farId = await open(`/api/events?last_event_id=${'9'.repeat(20)}`, testApp.auth);
      assert.equal(farId.status, 400, 'an event id past a bigint column is refused');
      const notAModel = await open('/api/events?model_id=nope', testApp.auth);
      assert.equal(notAModel.status, 400);
      assert.equal(notAModel.body, JSON.stringify({ success: false, error: 'Invalid model id' }));

      const token = await testApp.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: testApp.auth,
        payload: { name: 'viewer', scope: 'read' },
      });
      const readToken = token.json().data.token as string;
      const reader = await open(`/api/events?token=${encodeURIComponent(readToken)}`, {});
      assert.equal(reader.status, 200);
      const id = await upload('fourth');
      await reader.waitFor(
        (event) => event.type === 'model.created' && (event.data as { model_id: string }).model_id === id,
      );
    });
  });
}
