import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDialects } from '../helpers/databases.ts';
import { errorText, ISO_MS, materialApi, type MaterialJson } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const CREATE_DEFAULTS = {
  diffuse_r: 255,
  diffuse_g: 255,
  diffuse_b: 255,
  alpha: 255,
  shininess: 0,
  specular_r: 0,
  specular_g: 0,
  specular_b: 0,
  ambient_r: 0,
  ambient_g: 0,
  ambient_b: 0,
  metallic: 0,
  roughness: 0.5,
  reflectance: 0.5,
};

const EVERY_FIELD = {
  diffuse_r: 10.5,
  diffuse_g: 20,
  diffuse_b: 30,
  alpha: 128,
  shininess: 64,
  specular_r: 1,
  specular_g: 2,
  specular_b: 3,
  ambient_r: 4,
  ambient_g: 5,
  ambient_b: 6,
  metallic: 0.25,
  roughness: 0.75,
  reflectance: 0.1,
};

/** The material in the field order of the spec, so a whole body can be compared byte for byte. */
function inSpecOrder(material: MaterialJson): Record<string, unknown> {
  const { id, name, created_at, updated_at } = material;
  const numbers = Object.fromEntries(Object.keys(CREATE_DEFAULTS).map((key) => [key, material[key]]));
  return { id, name, ...numbers, created_at, updated_at };
}

for (const dialect of testDialects()) {
  void describe(`materials CRUD (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof materialApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = materialApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    void it('creates with the documented defaults and answers 201 `created` in the envelope', async () => {
      const answer = await api.call('POST', '/materials', { name: 'Plain' });
      assert.equal(answer.status, 201);
      const data = answer.json.data as MaterialJson;
      assert.ok(Number.isInteger(data.id) && data.id > 0);
      assert.match(data.created_at, ISO_MS);
      assert.equal(data.updated_at, data.created_at);
      const expected = {
        code: 0,
        message: 'created',
        data: {
          id: data.id,
          name: 'Plain',
          ...CREATE_DEFAULTS,
          created_at: data.created_at,
          updated_at: data.updated_at,
        },
      };
      assert.equal(answer.text, JSON.stringify(expected));
    });

    void it('stores every given field and trims the name', async () => {
      const created = await api.create({ name: '  Brushed steel  ', ...EVERY_FIELD });
      assert.deepEqual(inSpecOrder(created), {
        id: created.id,
        name: 'Brushed steel',
        ...EVERY_FIELD,
        created_at: created.created_at,
        updated_at: created.updated_at,
      });
      const read = await api.call('GET', `/materials/${created.id}`);
      assert.equal(read.status, 200);
      assert.equal(read.text, JSON.stringify({ code: 0, message: 'success', data: inSpecOrder(created) }));
    });

    void it('ignores unknown body fields on create and on update', async () => {
      const created = await api.create({ name: 'Extra', colour: 'red', nested: { a: 1 }, id: 999_999 });
      assert.notEqual(created.id, 999_999);
      assert.equal('colour' in created, false);
      const updated = await api.call('PUT', `/materials/${created.id}`, { alpha: 7, colour: 'blue', id: 5 });
      assert.equal(updated.status, 200);
      assert.equal(updated.json.data.id, created.id);
      assert.equal(updated.json.data.alpha, 7);
      assert.equal('colour' in updated.json.data, false);
    });

    void it('accepts the same name twice', async () => {
      const first = await api.create({ name: 'Twin' });
      const second = await api.create({ name: 'Twin' });
      assert.notEqual(first.id, second.id);
    });

    void it('answers 404 `material not found` without data for an unknown id', async () => {
      const answer = await api.call('GET', '/materials/987654');
      assert.equal(answer.status, 404);
      assert.equal(answer.text, errorText(404, 'material not found'));
    });

    void it('updates only the given fields, keeps created_at and moves updated_at', async () => {
      const created = await api.create({ name: 'Partial', ...EVERY_FIELD });
      await sleep(5);
      const answer = await api.call('PUT', `/materials/${created.id}`, { diffuse_g: 99, roughness: 0 });
      assert.equal(answer.status, 200);
      const updated = answer.json.data as MaterialJson;
      assert.equal(
        answer.text,
        JSON.stringify({
          code: 0,
          message: 'success',
          data: inSpecOrder({ ...created, diffuse_g: 99, roughness: 0, updated_at: updated.updated_at }),
        }),
      );
      assert.match(updated.updated_at, ISO_MS);
      assert.ok(updated.updated_at > created.updated_at, `${updated.updated_at} after ${created.updated_at}`);
      const read = await api.call('GET', `/materials/${created.id}`);
      assert.deepEqual(read.json.data, updated);
    });

    void it('renames with a trimmed name and refuses a blank one on update', async () => {
      const created = await api.create({ name: 'Old' });
      const renamed = await api.call('PUT', `/materials/${created.id}`, { name: '\tNew name\n' });
      assert.equal(renamed.json.data.name, 'New name');
      const blank = await api.call('PUT', `/materials/${created.id}`, { name: '   ' });
      assert.equal(blank.status, 400);
      assert.equal(blank.text, errorText(400, 'name must be a string of 1 to 255 characters'));
      const invalid = await api.call('PUT', `/materials/${created.id}`, { alpha: 256 });
      assert.equal(invalid.text, errorText(400, 'alpha must be a number between 0 and 255'));
      const read = await api.call('GET', `/materials/${created.id}`);
      assert.equal(read.json.data.name, 'New name');
      assert.equal(read.json.data.alpha, 255);
    });

    void it('answers 404 `material not found` when updating an unknown id', async () => {
      const answer = await api.call('PUT', '/materials/987654', { name: 'Ghost' });
      assert.equal(answer.status, 404);
      assert.equal(answer.text, errorText(404, 'material not found'));
    });

    void it('deletes, answering `{id}`, then 404 on read and on a second delete', async () => {
      const created = await api.create({ name: 'Doomed' });
      const answer = await api.call('DELETE', `/materials/${created.id}`);
      assert.equal(answer.status, 200);
      assert.equal(answer.text, JSON.stringify({ code: 0, message: 'success', data: { id: created.id } }));
      assert.equal((await api.call('GET', `/materials/${created.id}`)).status, 404);
      const again = await api.call('DELETE', `/materials/${created.id}`);
      assert.equal(again.status, 404);
      assert.equal(again.text, errorText(404, 'material not found'));
    });

    void it('answers JSON with a JSON content type', async () => {
      const response = await testApp.app.inject({
        method: 'GET',
        url: '/api/v1/materials',
        headers: testApp.auth,
      });
      assert.match(String(response.headers['content-type']), /^application\/json/);
      const missing = await testApp.app.inject({
        method: 'GET',
        url: '/api/v1/materials/987654',
        headers: testApp.auth,
      });
      assert.match(String(missing.headers['content-type']), /^application\/json/);
    });

    void it('deletes when the client sends a JSON content type with an empty body', async () => {
      const created = await api.create({ name: 'Bare delete' });
      const response = await testApp.app.inject({
        method: 'DELETE',
        url: `/api/v1/materials/${created.id}`,
        headers: { ...testApp.auth, 'content-type': 'application/json' },
        payload: '',
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, JSON.stringify({ code: 0, message: 'success', data: { id: created.id } }));
    });
  });
}
