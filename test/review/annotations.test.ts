// Annotations through the API: pinned to a part of a converted model, authored by the token's name, listed oldest
// first, edited, resolved and deleted with their events; kept across a reprocess and gone with their model; read
// tokens read them and are refused every write.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { eventTypes, reviewApi, scopedToken, viewBody } from './review-fixtures.ts';

const GROUP = 'annotated-part';

for (const dialect of testDialects()) {
  void describe(`annotations (${dialect})`, () => {
    let testApp: TestApp;
    let modelId: string;
    let admin: string;
    let writer: string;
    let reader: string;
    let call: ReturnType<typeof reviewApi>;

    before(async () => {
      testApp = await createTestApp(dialect);
      testApp.startJobRunner();
      const created = await catalogApi(testApp.app, testApp.auth).create('two.glb', await twoPartGlb(GROUP));
      modelId = (await waitForStatus(testApp.app, created.id, ['completed'])).id;
      admin = testApp.auth['x-api-token']!;
      writer = await scopedToken(testApp, 'Alice Reviewer', 'write');
      reader = await scopedToken(testApp, 'read-only', 'read');
      call = reviewApi(testApp.app);
    });
    after(() => testApp.close());

    const pin = (text: string, groupId = GROUP) => ({
      group_id: groupId,
      position: [0.25, 0.5, -0.125],
      normal: [0, 0, 1],
      text,
    });

    void it('creates, lists oldest first, edits, resolves and deletes, firing an event for each change', async () => {
      const first = await call('POST', `/${modelId}/annotations`, writer, pin('Crack here\nsee photo'));
      assert.equal(first.status, 201, first.text);
      const annotation = first.json.data;
      assert.match(annotation.id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(
        { ...annotation, id: undefined, created_at: undefined, updated_at: undefined },
        {
          id: undefined,
          model_id: modelId,
          group_id: GROUP,
          position: [0.25, 0.5, -0.125],
          normal: [0, 0, 1],
          text: 'Crack here\nsee photo',
          author: 'Alice Reviewer',
          resolved: false,
          created_at: undefined,
          updated_at: undefined,
        },
      );
      assert.equal(annotation.created_at, annotation.updated_at);
      const plainGroup = `${modelId}:1`;
      const second = await call('POST', `/${modelId}/annotations`, admin, pin('Admin note', plainGroup));
      assert.equal(second.status, 201, second.text);
      assert.equal(second.json.data.author, null, 'the admin token has no name');

      const list = await call('GET', `/${modelId}/annotations`, reader);
      assert.equal(list.status, 200, list.text);
      assert.deepEqual(
        list.json.data.map((one: { id: string }) => one.id),
        [annotation.id, second.json.data.id],
      );

      const edited = await call('PATCH', `/${modelId}/annotations/${annotation.id}`, writer, {
        text: 'Crack',
      });
      assert.equal(edited.status, 200, edited.text);
      assert.equal(edited.json.data.text, 'Crack');
      assert.equal(edited.json.data.resolved, false);
      assert.ok(edited.json.data.updated_at >= annotation.updated_at);
      const resolved = await call('PATCH', `/${modelId}/annotations/${annotation.id}`, writer, {
        resolved: true,
      });
      assert.equal(resolved.json.data.resolved, true);
      assert.equal(resolved.json.data.text, 'Crack');

      const deleted = await call('DELETE', `/${modelId}/annotations/${second.json.data.id}`, writer);
      assert.equal(deleted.text, JSON.stringify({ success: true, message: 'Annotation deleted' }));
      const after = await call('GET', `/${modelId}/annotations`, writer);
      assert.deepEqual(after.json.data, [resolved.json.data]);
      assert.deepEqual(
        (await eventTypes(testApp, modelId)).filter((type) => type.startsWith('annotation.')),
        [
          'annotation.created',
          'annotation.created',
          'annotation.updated',
          'annotation.updated',
          'annotation.deleted',
        ],
      );
      const [event] = await testApp.database.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'annotation.deleted')
        .execute();
      assert.deepEqual(JSON.parse(event!.data), {
        model_id: modelId,
        annotation_id: second.json.data.id,
        group_id: plainGroup,
      });
    });

    void it('refuses bad input with 400 and a message, unknown ones with 404', async () => {
      const cases: [unknown, string][] = [
        [
          pin('x', 'no-such-part'),
          'group_id "no-such-part" is not a part of the model (see GET /api/models/:id/parts)',
        ],
        [{ ...pin('x'), normal: [0, 0, 0] }, 'normal must not be zero'],
        [{ ...pin('x'), position: [1, 2] }, 'position must hold at least 3 items'],
        [{ ...pin('x'), text: '' }, 'text must be a string of 1 to 10000 characters'],
        [{ ...pin('x'), text: 'y'.repeat(10_001) }, 'text must be a string of 1 to 10000 characters'],
        [{ ...pin('x'), colour: 'red' }, 'unknown field colour'],
      ];
      for (const [body, message] of cases) {
        const answer = await call('POST', `/${modelId}/annotations`, writer, body);
        assert.equal(answer.status, 400, answer.text);
        assert.equal(answer.json.success, false);
        assert.equal(answer.json.error, message, JSON.stringify(body).slice(0, 80));
      }
      // 1e999 is valid JSON and parses as Infinity.
      const infinite = await call(
        'POST',
        `/${modelId}/annotations`,
        writer,
        `{"group_id":"${GROUP}","position":[1e999,0,0],"normal":[0,1,0],"text":"x"}`,
      );
      assert.equal(infinite.status, 400, infinite.text);
      assert.match(infinite.json.error, /^position\[0\] must be a finite number/);

      const missingModel = await call('POST', `/${randomUUID()}/annotations`, writer, pin('x'));
      assert.equal(missingModel.status, 404);
      assert.equal(missingModel.text, catalogError('Model not found'));
      assert.equal(
        (await call('GET', `/${randomUUID()}/annotations`, reader)).text,
        catalogError('Model not found'),
      );
      const missing = await call('PATCH', `/${modelId}/annotations/${randomUUID()}`, writer, {
        resolved: true,
      });
      assert.equal(missing.status, 404);
      assert.equal(missing.text, catalogError('Annotation not found'));
      const gone = await call('DELETE', `/${modelId}/annotations/${randomUUID()}`, writer);
      assert.equal(gone.text, catalogError('Annotation not found'));
      const empty = await call('PATCH', `/${modelId}/annotations/${randomUUID()}`, writer, {});
      assert.equal(empty.status, 400, empty.text);
    });

    void it('lets a read token read and refuses its writes with the catalog 403', async () => {
      const created = await call('POST', `/${modelId}/annotations`, writer, pin('kept'));
      const id = created.json.data.id;
      const refused = [
        await call('POST', `/${modelId}/annotations`, reader, pin('no')),
        await call('PATCH', `/${modelId}/annotations/${id}`, reader, { resolved: true }),
        await call('DELETE', `/${modelId}/annotations/${id}`, reader),
        await call('POST', `/${modelId}/views`, reader, viewBody()),
      ];
      for (const answer of refused) {
        assert.equal(answer.status, 403, answer.text);
        assert.equal(answer.text, catalogError('token is read-only'));
      }
      const list = await call('GET', `/${modelId}/annotations`, reader);
      assert.ok(
        list.json.data.some((one: { id: string; resolved: boolean }) => one.id === id && !one.resolved),
      );
    });

    void it('keeps annotations and views across a reprocess, and deletes them with the model', async () => {
      const annotation = (await call('POST', `/${modelId}/annotations`, writer, pin('survives'))).json.data;
      const view = (await call('POST', `/${modelId}/views`, writer, viewBody([GROUP]))).json.data;
      const reprocess = await catalogApi(testApp.app, testApp.auth).call('POST', `/${modelId}/reprocess`);
      assert.equal(reprocess.status, 200, reprocess.text);
      await waitForStatus(testApp.app, modelId, ['completed']);
      const parts = await catalogApi(testApp.app, testApp.auth).call('GET', `/${modelId}/parts`);
      assert.ok(
        parts.json.data.some((part: { group_id: string }) => part.group_id === GROUP),
        'group ids are stable',
      );
      const annotations = (await call('GET', `/${modelId}/annotations`, reader)).json.data;
      assert.deepEqual(
        annotations.find((one: { id: string }) => one.id === annotation.id),
        annotation,
      );
      assert.deepEqual((await call('GET', `/${modelId}/views/${view.id}`, reader)).json.data, view);

      const removed = await catalogApi(testApp.app, testApp.auth).call('DELETE', `/${modelId}`);
      assert.equal(removed.status, 200, removed.text);
      const left = await testApp.database.db
        .selectFrom('annotations')
        .select('id')
        .where('model_id', '=', modelId)
        .execute();
      const views = await testApp.database.db
        .selectFrom('saved_views')
        .select('id')
        .where('model_id', '=', modelId)
        .execute();
      assert.deepEqual([left, views], [[], []]);
      assert.equal(
        (await call('GET', `/${modelId}/annotations`, admin)).text,
        catalogError('Model not found'),
      );
    });
  });
}
