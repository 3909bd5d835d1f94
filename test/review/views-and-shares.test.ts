// Saved views through the API (create, list, get, delete, their events and refusals), and share links that show a
// model's annotations read-only only when they were made to.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { addModelWithParts } from '../helpers/model-with-parts.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { eventTypes, reviewApi, scopedToken, viewBody } from './review-fixtures.ts';

for (const dialect of testDialects()) {
  void describe(`saved views and shared annotations (${dialect})`, () => {
    let testApp: TestApp;
    let admin: string;
    let writer: string;
    let reader: string;
    let call: ReturnType<typeof reviewApi>;
    const modelId = randomUUID();

    before(async () => {
      // The webhook below points at loopback, which only an opt-in allows.
      testApp = await createTestApp(dialect, { WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'false' });
      await addModelWithParts(testApp.database, modelId, ['part-a', 'part-b']);
      admin = testApp.auth['x-api-token']!;
      writer = await scopedToken(testApp, 'Bob', 'write');
      reader = await scopedToken(testApp, 'Carol', 'read');
      call = reviewApi(testApp.app);
    });
    after(() => testApp.close());

    void it('saves a view, lists it, reads it by id and deletes it, with events', async () => {
      const created = await call('POST', `/${modelId}/views`, writer, viewBody(['part-b']));
      assert.equal(created.status, 201, created.text);
      const view = created.json.data;
      assert.deepEqual(
        { ...view, id: undefined, created_at: undefined },
        { ...viewBody(['part-b']), id: undefined, model_id: modelId, author: 'Bob', created_at: undefined },
      );
      const second = (await call('POST', `/${modelId}/views`, admin, viewBody([], ['part-a']))).json.data;
      assert.equal(second.author, null);
      const list = await call('GET', `/${modelId}/views`, reader);
      assert.deepEqual(list.json.data, [view, second]);
      assert.deepEqual((await call('GET', `/${modelId}/views/${view.id}`, reader)).json.data, view);
      const deleted = await call('DELETE', `/${modelId}/views/${view.id}`, writer);
      assert.equal(deleted.text, JSON.stringify({ success: true, message: 'View deleted' }));
      const gone = await call('GET', `/${modelId}/views/${view.id}`, reader);
      assert.equal(gone.status, 404);
      assert.equal(gone.text, catalogError('View not found'));
      assert.equal(
        (await call('DELETE', `/${modelId}/views/${view.id}`, writer)).text,
        catalogError('View not found'),
      );
      assert.deepEqual(await eventTypes(testApp, modelId), ['view.created', 'view.created', 'view.deleted']);
      assert.equal(
        (await call('GET', `/${randomUUID()}/views`, reader)).text,
        catalogError('Model not found'),
      );
      const refused = await call('DELETE', `/${modelId}/views/${second.id}`, reader);
      assert.equal(refused.status, 403);
      assert.equal(refused.text, catalogError('token is read-only'));
    });

    void it('queues webhook deliveries of the review events a webhook asks for', async () => {
      const hook = await testApp.app.inject({
        method: 'POST',
        url: '/api/webhooks',
        headers: testApp.auth,
        payload: {
          url: 'http://127.0.0.1:9/hook',
          events: ['annotation.created', 'annotation.updated', 'annotation.deleted', 'view.deleted'],
        },
      });
      assert.equal(hook.statusCode, 201, hook.body);
      const webhookId = hook.json().data.id as string;
      const note = await call('POST', `/${modelId}/annotations`, writer, {
        group_id: 'part-b',
        position: [0, 0, 0],
        normal: [1, 0, 0],
        text: 'hooked',
      });
      const id = note.json.data.id;
      await call('PATCH', `/${modelId}/annotations/${id}`, writer, { resolved: true });
      await call('DELETE', `/${modelId}/annotations/${id}`, writer);
      const view = await call('POST', `/${modelId}/views`, writer, viewBody());
      await call('DELETE', `/${modelId}/views/${view.json.data.id}`, writer);
      const deliveries = await testApp.database.db
        .selectFrom('webhook_deliveries')
        .select(['event_type', 'body'])
        .where('webhook_id', '=', webhookId)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        deliveries.map((delivery) => delivery.event_type),
        ['annotation.created', 'annotation.updated', 'annotation.deleted', 'view.deleted'],
      );
      assert.deepEqual(JSON.parse(deliveries[0]!.body).data, {
        model_id: modelId,
        annotation_id: id,
        group_id: 'part-b',
      });
      await testApp.app.inject({
        method: 'DELETE',
        url: `/api/webhooks/${webhookId}`,
        headers: testApp.auth,
      });
    });

    void it('refuses views that cannot be shown', async () => {
      const base = viewBody();
      const cases: [unknown, string][] = [
        [{ ...base, level: 3 }, 'level must be an integer between 0 and 2'],
        [{ ...base, camera: { ...base.camera, up: [0, 0, 0] } }, 'camera.up must not be zero'],
        [
          { ...base, camera: { ...base.camera, target: base.camera.position } },
          'camera.position and camera.target must differ',
        ],
        [{ ...base, sections: [{ normal: [0, 0, 0], constant: 1 }] }, 'sections[0].normal must not be zero'],
        [{ ...base, name: '' }, 'name must be a string of 1 to 200 characters'],
        [
          viewBody(['part-a', 'gone']),
          'hidden names group ids that are not parts of the model: "gone" (see GET /api/models/:id/parts)',
        ],
        [
          viewBody([], ['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'part-b', 'x7']),
          'isolated names group ids that are not parts of the model: "x1", "x2", "x3", "x4", "x5" and 2 more (see GET /api/models/:id/parts)',
        ],
      ];
      for (const [body, message] of cases) {
        const answer = await call('POST', `/${modelId}/views`, writer, body);
        assert.equal(answer.status, 400, answer.text);
        assert.equal(answer.json.error, message);
      }
      const { camera, ...noCamera } = base;
      assert.ok(camera);
      const missing = await call('POST', `/${modelId}/views`, writer, noCamera);
      assert.equal(missing.json.error, 'camera is required');
    });

    void it('shows annotations on a share page only when the link was made with annotations', async () => {
      const note = await call('POST', `/${modelId}/annotations`, writer, {
        group_id: 'part-a',
        position: [0.5, 1, 0.5],
        normal: [0, 1, 0],
        text: 'Visible to the public',
      });
      assert.equal(note.status, 201, note.text);
      const share = async (body?: object) => {
        const response = await testApp.app.inject({
          method: 'POST',
          url: `/api/models/${modelId}/shares`,
          headers: body ? { ...testApp.auth, 'content-type': 'application/json' } : testApp.auth,
          payload: body ? JSON.stringify(body) : undefined,
        });
        assert.equal(response.statusCode, 201, response.body);
        const data = response.json().data as { url: string; annotations: boolean };
        return { ...data, secret: data.url.split('/s/')[1]! };
      };
      const get = async (url: string) => {
        const response = await testApp.app.inject({ method: 'GET', url });
        return { status: response.statusCode, json: response.json() };
      };

      const plain = await share();
      assert.equal(plain.annotations, false);
      assert.equal((await get(`/s/${plain.secret}/models/${modelId}`)).json.data.annotations, false);
      const hidden = await get(`/s/${plain.secret}/models/${modelId}/annotations`);
      assert.deepEqual(hidden, { status: 404, json: { success: false, error: 'Share link not found' } });
      assert.equal((await share({})).annotations, false, 'an empty body keeps the default');

      const open = await share({ annotations: true });
      assert.equal(open.annotations, true);
      assert.equal((await get(`/s/${open.secret}/models/${modelId}`)).json.data.annotations, true);
      const shown = await get(`/s/${open.secret}/models/${modelId}/annotations`);
      assert.equal(shown.status, 200);
      assert.deepEqual(shown.json.data, [note.json.data]);
      assert.equal((await get(`/s/${open.secret}/models/${randomUUID()}/annotations`)).status, 404);
      const write = await testApp.app.inject({
        method: 'POST',
        url: `/s/${open.secret}/models/${modelId}/annotations`,
        payload: {},
      });
      assert.equal(write.statusCode, 404, 'the share page is read-only');

      const bad = await testApp.app.inject({
        method: 'POST',
        url: `/api/models/${modelId}/shares`,
        headers: { ...testApp.auth, 'content-type': 'application/json' },
        payload: JSON.stringify({ annotations: 'yes' }),
      });
      assert.equal(bad.statusCode, 400, bad.body);
    });
  });
}
