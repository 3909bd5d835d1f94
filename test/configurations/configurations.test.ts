// Configurations of a model through the API (create, copy, list, read, rename, delete, their bindings, apply, the
// limits and refusals, their events) and the material lookup with `configuration_id`, small and over 100,000 groups.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { MAX_CONFIGURATIONS } from '../../src/configurations/schemas.ts';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { generatedGroupId } from '../helpers/generated-parts.ts';
import { materialApi } from '../helpers/material-api.ts';
import { addModelWithParts } from '../helpers/model-with-parts.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { eventTypes } from '../review/review-fixtures.ts';

const GROUPS = 100_000;

for (const dialect of testDialects()) {
  void describe(`configurations (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    let red: number;
    let blue: number;
    const modelId = randomUUID();
    const otherModel = randomUUID();
    const bigModel = randomUUID();
    const bigGroups = Array.from({ length: GROUPS }, (_, index) => generatedGroupId(index));

    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
      await addModelWithParts(testApp.database, modelId, ['seat', 'legs', 'back']);
      await addModelWithParts(testApp.database, otherModel, ['other-part']);
      await addModelWithParts(testApp.database, bigModel, bigGroups);
      red = (await materials.create({ name: 'red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 })).id;
      blue = (await materials.create({ name: 'blue', diffuse_r: 0, diffuse_g: 0, diffuse_b: 255 })).id;
      await materials.bind(red, ['seat']);
    });
    after(() => testApp.close());

    const call = (method: string, path: string, body?: unknown) => api.call(method as 'GET', path, body);
    const create = async (id: string, body: Record<string, unknown>) => {
      const answer = await call('POST', `/${id}/configurations`, body);
      assert.equal(answer.status, 201, answer.text);
      return answer.json.data;
    };
    const lookup = (body: Record<string, unknown>) => materials.call('POST', '/groups/materials', body);
    const shown = (answer: { json: { data: { group_id: string; material: { id: number } }[] } }) =>
      Object.fromEntries(answer.json.data.map((entry) => [entry.group_id, entry.material.id]));

    void it('creates empty, from the current bindings and from another, lists, reads, renames, deletes', async () => {
      const empty = await create(modelId, { name: '  Plain  ' });
      assert.equal(empty.name, 'Plain');
      assert.equal(empty.description, '');
      assert.equal(empty.binding_count, 0);
      assert.equal(empty.thumbnail_url, null);
      assert.equal(empty.model_id, modelId);
      const current = await create(modelId, { name: 'Current', description: 'as bound', from: 'current' });
      assert.equal(current.binding_count, 1);
      const copy = await create(modelId, { name: 'Copy', from: current.id });
      assert.equal(copy.binding_count, 1);
      const list = await call('GET', `/${modelId}/configurations`);
      assert.deepEqual(
        list.json.data.map((c: { name: string }) => c.name),
        ['Plain', 'Current', 'Copy'],
      );
      assert.deepEqual((await call('GET', `/${modelId}/configurations/${copy.id}`)).json.data, copy);
      const renamed = await call('PATCH', `/${modelId}/configurations/${copy.id}`, {
        name: 'Copied',
        description: 'd',
      });
      assert.equal(renamed.status, 200, renamed.text);
      assert.equal(renamed.json.data.name, 'Copied');
      assert.equal(renamed.json.data.description, 'd');
      const deleted = await call('DELETE', `/${modelId}/configurations/${copy.id}`);
      assert.equal(deleted.text, JSON.stringify({ success: true, message: 'Configuration deleted' }));
      const gone = await call('GET', `/${modelId}/configurations/${copy.id}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.text, catalogError('Configuration not found'));
      for (const id of [empty.id, current.id]) await call('DELETE', `/${modelId}/configurations/${id}`);
      assert.deepEqual(await eventTypes(testApp, modelId), [
        'configuration.created',
        'configuration.created',
        'configuration.created',
        'configuration.updated',
        'configuration.deleted',
        'configuration.deleted',
        'configuration.deleted',
      ]);
    });

    void it('refuses a taken name (409), a bad `from`, a blank name, unknown models and configurations', async () => {
      const first = await create(modelId, { name: 'Taken' });
      const taken = await call('POST', `/${modelId}/configurations`, { name: 'Taken' });
      assert.equal(taken.status, 409);
      assert.equal(taken.text, catalogError('The model already has a configuration named "Taken"'));
      const second = await create(modelId, { name: 'Other' });
      const rename = await call('PATCH', `/${modelId}/configurations/${second.id}`, { name: 'Taken' });
      assert.equal(rename.status, 409);
      // The same name in another model is fine.
      await create(otherModel, { name: 'Taken' });
      const foreign = await call('POST', `/${otherModel}/configurations`, { name: 'X', from: first.id });
      assert.equal(foreign.status, 400);
      assert.match(foreign.json.error, /^from must be "current" or the id of a configuration of this model/);
      const blank = await call('POST', `/${modelId}/configurations`, { name: '   ' });
      assert.equal(blank.status, 400);
      const emptyPatch = await call('PATCH', `/${modelId}/configurations/${second.id}`, {});
      assert.equal(emptyPatch.status, 400);
      assert.equal(
        (await call('GET', `/${randomUUID()}/configurations`)).text,
        catalogError('Model not found'),
      );
      const unknown = await call('GET', `/${modelId}/configurations/${randomUUID()}`);
      assert.equal(unknown.text, catalogError('Configuration not found'));
      assert.equal((await call('GET', `/${modelId}/configurations/nope`)).status, 400);
      // A configuration of another model is not found under this one.
      assert.equal((await call('GET', `/${otherModel}/configurations/${first.id}`)).status, 404);
      for (const c of [first, second]) await call('DELETE', `/${modelId}/configurations/${c.id}`);
    });

    void it(`keeps at most ${MAX_CONFIGURATIONS} configurations a model (409)`, async () => {
      const limited = randomUUID();
      await addModelWithParts(testApp.database, limited, ['p']);
      for (let n = 0; n < MAX_CONFIGURATIONS - 2; n++) await create(limited, { name: `c${n}` });
      // The last two places asked for by six at once: two are made, never a hundred and first.
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, n) =>
          call('POST', `/${limited}/configurations`, { name: `race ${n}` }),
        ),
      );
      assert.deepEqual(racing.map((answer) => answer.status).sort(), [201, 201, 409, 409, 409, 409]);
      assert.equal((await call('GET', `/${limited}/configurations`)).json.data.length, MAX_CONFIGURATIONS);
      const refused = await call('POST', `/${limited}/configurations`, { name: 'one more' });
      assert.equal(refused.status, 409);
      assert.equal(
        refused.text,
        catalogError(
          `The model has ${MAX_CONFIGURATIONS} configurations, the most it may have; delete one first`,
        ),
      );
    });

    void it('replaces, adds, moves and removes bindings; refuses unknown groups and materials, changing nothing', async () => {
      const c = await create(modelId, { name: 'Paint' });
      const path = `/${modelId}/configurations/${c.id}/bindings`;
      const put = await call('PUT', path, {
        bindings: [
          { group_id: 'seat', material_id: blue },
          { group_id: 'legs', material_id: red },
        ],
      });
      assert.equal(put.status, 200, put.text);
      assert.equal(put.json.data.binding_count, 2);
      const added = await call('POST', path, {
        bindings: [
          { group_id: 'legs', material_id: blue },
          { group_id: 'back', material_id: blue },
        ],
      });
      assert.equal(added.json.data.binding_count, 3);
      const before = shown(await lookup({ group_ids: ['seat', 'legs', 'back'], configuration_id: c.id }));
      assert.deepEqual(before, { seat: blue, legs: blue, back: blue });

      const strangers = await call('POST', path, {
        bindings: [
          { group_id: 'other-part', material_id: red },
          { group_id: 'seat', material_id: red },
        ],
      });
      assert.equal(strangers.status, 400);
      assert.equal(
        strangers.json.error,
        'group_id "other-part" is not a part of the model (see GET /api/models/:id/parts); nothing was changed',
      );
      const noMaterial = await call('PUT', path, { bindings: [{ group_id: 'seat', material_id: 999_999 }] });
      assert.equal(noMaterial.status, 400);
      assert.equal(noMaterial.json.error, 'material_id 999999 is not a material; nothing was changed');
      assert.deepEqual(
        shown(await lookup({ group_ids: ['seat', 'legs', 'back'], configuration_id: c.id })),
        before,
      );

      const removed = await call('DELETE', path, { group_ids: ['back', 'not-bound'] });
      assert.equal(removed.json.data.binding_count, 2);
      const replaced = await call('PUT', path, { bindings: [{ group_id: 'legs', material_id: red }] });
      assert.equal(replaced.json.data.binding_count, 1);
      // The seat is bound red in the material service; the configuration no longer binds it.
      assert.deepEqual(shown(await lookup({ group_ids: ['seat', 'legs', 'back'], configuration_id: c.id })), {
        seat: red,
        legs: red,
      });
      assert.equal(
        (await call('PUT', `/${modelId}/configurations/${randomUUID()}/bindings`, { bindings: [] })).status,
        404,
      );
      assert.equal((await call('PUT', path, { bindings: [{ group_id: '', material_id: red }] })).status, 400);
      await call('DELETE', `/${modelId}/configurations/${c.id}`);
    });

    void it("applies in one go: its bindings become the model's, others stay, with bindings.changed", async () => {
      const c = await create(modelId, { name: 'Blue legs' });
      await call('PUT', `/${modelId}/configurations/${c.id}/bindings`, {
        bindings: [{ group_id: 'legs', material_id: blue }],
      });
      const applied = await call('POST', `/${modelId}/configurations/${c.id}/apply`);
      assert.equal(applied.status, 200, applied.text);
      assert.equal(applied.json.data.id, c.id);
      assert.deepEqual(shown(await lookup({ group_ids: ['seat', 'legs', 'back'] })), {
        seat: red,
        legs: blue,
      });
      assert.equal((await eventTypes(testApp, modelId)).at(-1), 'configuration.applied');
      // The material service's own event for the bind, naming the model, as a bind through it does.
      const announced = await testApp.database.db
        .selectFrom('events')
        .select('data')
        .where('type', '=', 'bindings.changed')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      assert.deepEqual(JSON.parse(String(announced.data)), {
        material_id: blue,
        group_ids: ['legs'],
        bound: true,
        model_ids: [modelId],
      });
      assert.equal((await call('POST', `/${modelId}/configurations/${randomUUID()}/apply`)).status, 404);
      await materials.bind(red, ['legs']);
      await call('DELETE', `/${modelId}/configurations/${c.id}`);
    });

    void it('answers a lookup as today without configuration_id, and never a stale configured one', async () => {
      const c = await create(modelId, { name: 'Lookup' });
      const plainBody = { group_ids: ['seat', 'legs', 'back'] };
      const plain = await lookup(plainBody);
      const configured = { ...plainBody, configuration_id: c.id };
      assert.equal(
        (await lookup(configured)).text,
        plain.text,
        'an empty configuration shows the present bindings',
      );
      await call('POST', `/${modelId}/configurations/${c.id}/bindings`, {
        bindings: [{ group_id: 'back', material_id: blue }],
      });
      // Asked again with the same bytes: the kept reply is brought up to date.
      assert.deepEqual(shown(await lookup(configured)), { seat: red, legs: red, back: blue });
      assert.equal((await lookup(plainBody)).text, plain.text);
      // Deleting a material a configuration uses takes its bindings, as it takes a bound one's.
      const green = (await materials.create({ name: 'green', diffuse_g: 255 })).id;
      await call('POST', `/${modelId}/configurations/${c.id}/bindings`, {
        bindings: [{ group_id: 'seat', material_id: green }],
      });
      assert.deepEqual(shown(await lookup(configured)), { seat: green, legs: red, back: blue });
      const deleted = await materials.call('DELETE', `/materials/${green}`);
      assert.equal(deleted.status, 200);
      assert.equal(deleted.text, JSON.stringify({ code: 0, message: 'success', data: { id: green } }));
      assert.deepEqual(shown(await lookup(configured)), { seat: red, legs: red, back: blue });
      await call('DELETE', `/${modelId}/configurations/${c.id}`);
      const gone = await lookup(configured);
      assert.equal(gone.status, 404);
      assert.equal(gone.text, JSON.stringify({ code: 404, message: 'configuration not found' }));
      assert.equal((await lookup({ ...plainBody, configuration_id: 'nope' })).status, 400);
    });

    void it('looks up 100,000 groups with and without a configuration binding half of them', async () => {
      await materials.bind(red, bigGroups);
      const c = await create(bigModel, { name: 'Half blue' });
      const half = bigGroups.filter((_, index) => index % 2 === 0);
      const put = await call('PUT', `/${bigModel}/configurations/${c.id}/bindings`, {
        bindings: half.map((group_id) => ({ group_id, material_id: blue })),
      });
      assert.equal(put.status, 200, put.text.slice(0, 300));
      assert.equal(put.json.data.binding_count, GROUPS / 2);
      const plain = await lookup({ group_ids: bigGroups });
      assert.equal(plain.json.data.length, GROUPS);
      assert.ok(plain.json.data.every((entry: { material: { id: number } }) => entry.material.id === red));
      const configured = await lookup({ group_ids: bigGroups, configuration_id: c.id });
      assert.equal(configured.json.data.length, GROUPS);
      configured.json.data.forEach((entry: { group_id: string; material: { id: number } }, index: number) => {
        assert.equal(entry.group_id, bigGroups[index]);
        assert.equal(entry.material.id, index % 2 === 0 ? blue : red);
      });
      const copy = await create(bigModel, { name: 'Copy', from: 'current' });
      assert.equal(copy.binding_count, GROUPS);
      // Deleting the model deletes its configurations.
      assert.equal((await call('DELETE', `/${bigModel}`)).status, 200);
      const rows = await testApp.database.db
        .selectFrom('configurations')
        .select('id')
        .where('model_id', '=', bigModel)
        .execute();
      assert.deepEqual(rows, []);
      assert.equal((await lookup({ group_ids: ['x'], configuration_id: c.id })).status, 404);
    });
  });
}
