import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi, catalogError } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

for (const dialect of testDialects()) {
  void describe(`editing model metadata (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let model: any;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      model = await api.create('triangle.obj', OBJ, { description: 'first' });
    });
    after(() => testApp.close());

    const current = async () => (await api.call('GET', `/${model.id}`)).json.data;

    void it('changes name, description and tags, moves updated_at and keeps the rest', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const response = await api.call('PATCH', `/${model.id}`, {
        name: 'Renamed',
        description: 'A better description',
        tags: ['red', 'small'],
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.success, true);
      const data = response.json.data;
      assert.equal(data.name, 'Renamed');
      assert.equal(data.description, 'A better description');
      assert.deepEqual(data.tags, ['red', 'small']);
      assert.ok(data.updated_at > model.updated_at, `${data.updated_at} > ${model.updated_at}`);
      assert.equal(data.created_at, model.created_at);
      const changed = new Set(['name', 'description', 'tags', 'updated_at']);
      for (const key of Object.keys(model).filter((key) => !changed.has(key))) {
        assert.deepEqual(data[key], model[key], key);
      }
      assert.deepEqual(await current(), data, 'the change is stored');
    });

    void it('changes only the fields sent', async () => {
      const before = await current();
      const response = await api.call('PATCH', `/${model.id}`, { tags: [] });
      assert.equal(response.status, 200);
      assert.deepEqual(response.json.data.tags, []);
      assert.equal(response.json.data.name, before.name);
      assert.equal(response.json.data.description, before.description);
      const description = await api.call('PATCH', `/${model.id}`, { description: '' });
      assert.equal(description.json.data.description, '');
      assert.equal(description.json.data.name, before.name);
    });

    void it('accepts the largest allowed values', async () => {
      const response = await api.call('PATCH', `/${model.id}`, {
        name: 'n'.repeat(255),
        description: 'd'.repeat(10_000),
        tags: Array.from({ length: 50 }, (_, index) => `${index}`.padEnd(64, 't')),
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.data.name.length, 255);
      assert.equal(response.json.data.tags.length, 50);
    });

    void it('refuses bad bodies with 400 naming the problem, changing nothing', async () => {
      const before = await current();
      const cases: [body: unknown, error: RegExp][] = [
        [{}, /at least one of name, description, tags/],
        [{ color: 'red' }, /^unknown field color$/],
        [{ name: 'ok', owner: 'me' }, /^unknown field owner$/],
        [{ name: 'n'.repeat(256) }, /^name /],
        [{ name: '' }, /^name /],
        [{ name: '   ' }, /^name /],
        [{ name: 5 }, /^name /],
        [{ description: 'd'.repeat(10_001) }, /^description /],
        [{ tags: Array.from({ length: 51 }, (_, index) => `t${index}`) }, /^tags /],
        [{ tags: ['t'.repeat(65)] }, /^tags/],
        [{ tags: 'red' }, /^tags /],
        [{ tags: [1] }, /^tags/],
        ['[]', /body/],
        ['{"name":', /JSON/],
      ];
      for (const [body, error] of cases) {
        const response = await api.call('PATCH', `/${model.id}`, body);
        const label = JSON.stringify(body).slice(0, 60);
        assert.equal(response.status, 400, label);
        assert.equal(response.json.success, false, label);
        assert.match(response.json.error, error, `${label}: ${response.json.error}`);
      }
      const empty = await api.call('PATCH', `/${model.id}`);
      assert.equal(empty.status, 400);
      assert.deepEqual(await current(), before);
    });

    void it('answers 404 `Model not found` for an unknown model', async () => {
      const response = await api.call('PATCH', `/${UNKNOWN_ID}`, { name: 'x' });
      assert.equal(response.status, 404);
      assert.equal(response.text, catalogError('Model not found'));
    });
  });
}
