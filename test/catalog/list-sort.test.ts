import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const triangle = (padding: number) => `v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n${'#'.repeat(padding)}\n`;

// Uploaded in this order. Names mix case so a byte-order sort would differ from the case-insensitive one;
// padding gives each file its own size; triangle counts are written straight into the rows (null = not converted).
const UPLOADS = [
  { name: 'banana', padding: 30, triangles: 500, tags: ['Fruit', 'yellow'] },
  { name: 'Apple', padding: 10, triangles: 20, tags: ['fruit'] },
  { name: 'cherry', padding: 50, triangles: null, tags: [] },
  { name: 'apricot', padding: 40, triangles: 7, tags: ['fruit', 'orange'] },
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const dialect of testDialects()) {
  void describe(`sorting and tag filter of the model list (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      for (const upload of UPLOADS) {
        const { id } = await api.create(`${upload.name}.obj`, triangle(upload.padding), {
          name: upload.name,
        });
        if (upload.tags.length > 0) {
          const patched = await api.call('PATCH', `/${id}`, { tags: upload.tags });
          assert.equal(patched.status, 200, patched.text);
        }
        await testApp.database.db
          .updateTable('models')
          .set({ triangle_count: upload.triangles })
          .where('id', '=', id)
          .execute();
        // Distinct creation times, so the created_at orders have one right answer.
        await sleep(5);
      }
    });
    after(() => testApp.close());

    const names = async (query: string) => {
      const response = await api.call('GET', `?${query}`);
      assert.equal(response.status, 200, `${query}: ${response.text}`);
      return (response.json.data as { name: string }[]).map((model) => model.name);
    };

    void it('keeps newest first as the default and as -created_at', async () => {
      const newest = ['apricot', 'cherry', 'Apple', 'banana'];
      assert.deepEqual(await names(''), newest);
      assert.deepEqual(await names('sort=-created_at'), newest);
      assert.deepEqual(await names('sort=created_at'), [...newest].reverse());
    });

    void it('sorts by name ignoring case, both ways', async () => {
      assert.deepEqual(await names('sort=name'), ['Apple', 'apricot', 'banana', 'cherry']);
      assert.deepEqual(await names('sort=-name'), ['cherry', 'banana', 'apricot', 'Apple']);
    });

    void it('sorts by file size', async () => {
      assert.deepEqual(await names('sort=file_size'), ['Apple', 'banana', 'apricot', 'cherry']);
      assert.deepEqual(await names('sort=-file_size'), ['cherry', 'apricot', 'banana', 'Apple']);
    });

    void it('sorts by triangle count with unconverted models last either way', async () => {
      assert.deepEqual(await names('sort=triangle_count'), ['apricot', 'Apple', 'banana', 'cherry']);
      assert.deepEqual(await names('sort=-triangle_count'), ['banana', 'Apple', 'apricot', 'cherry']);
    });

    void it('pages through a sorted list without overlap', async () => {
      const first = await names('sort=name&limit=2');
      const second = await names('sort=name&limit=2&offset=2');
      assert.deepEqual([...first, ...second], ['Apple', 'apricot', 'banana', 'cherry']);
    });

    void it('filters by tag, case-insensitively and whole tags only, counting the matches', async () => {
      assert.deepEqual(await names('tag=fruit&sort=name'), ['Apple', 'apricot', 'banana']);
      assert.deepEqual(await names('tag=FRUIT&sort=name'), ['Apple', 'apricot', 'banana']);
      assert.deepEqual(await names('tag=orange'), ['apricot']);
      assert.deepEqual(await names('tag=fru'), []);
      assert.deepEqual(await names(`tag=${encodeURIComponent('%')}`), []);
      const counted = await api.call('GET', '?tag=fruit&limit=1&search=ap');
      assert.deepEqual(counted.json.meta, { total: 2, limit: 1, offset: 0 });
    });

    void it('answers 400 naming the parameter for a bad sort or tag', async () => {
      const sort = await api.call('GET', '?sort=size');
      assert.equal(sort.status, 400);
      assert.equal(
        sort.json.error,
        'sort must be one of created_at, -created_at, name, -name, file_size, -file_size, triangle_count, -triangle_count',
      );
      for (const query of ['sort=', 'sort=+name', 'sort=NAME', 'tag=', `tag=${'x'.repeat(65)}`]) {
        const response = await api.call('GET', `?${query}`);
        assert.equal(response.status, 400, query);
        assert.match(response.json.error, /^(sort|tag) /, `${query}: ${response.json.error}`);
      }
    });

    void it('documents sort and tag in the OpenAPI document', async () => {
      const response = await testApp.app.inject({ method: 'GET', url: '/docs/json' });
      assert.equal(response.statusCode, 200);
      const document = JSON.parse(response.body) as {
        paths: Record<string, { get?: { parameters?: { name: string; schema: { enum?: string[] } }[] } }>;
      };
      const parameters = document.paths['/api/models']?.get?.parameters;
      assert.ok(parameters, 'the list route is documented');
      const sort = parameters.find((parameter) => parameter.name === 'sort');
      assert.deepEqual(sort?.schema.enum?.slice(0, 2), ['created_at', '-created_at']);
      assert.ok(parameters.some((parameter) => parameter.name === 'tag'));
    });
  });
}
