import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testDialects } from '../helpers/databases.ts';
import { materialApi, type MaterialJson } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const NAMES = [
  'Red brick',
  'dark RED',
  'Blue',
  '100% wool',
  '100 wool',
  'a_b',
  'axb',
  'C:\\textures\\oak',
  'Ceramic',
];

for (const dialect of testDialects()) {
  void describe(`GET /materials (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof materialApi>;
    const created: MaterialJson[] = [];
    before(async () => {
      testApp = await createTestApp(dialect);
      api = materialApi(testApp.app, testApp.auth);
      for (const name of NAMES) created.push(await api.create({ name }));
      for (let i = 0; i < 16; i++) created.push(await api.create({ name: `Filler ${i}` }));
    });
    after(() => testApp.close());

    const list = async (query: string) => {
      const answer = await api.call('GET', `/materials${query}`);
      assert.equal(answer.status, 200, answer.text);
      assert.equal(answer.json.code, 0);
      assert.equal(answer.json.message, 'success');
      return answer.json.data as { items: MaterialJson[]; total: number; page: number; page_size: number };
    };
    const names = (items: MaterialJson[]) => items.map((item) => item.name);

    void it('serves 20 materials by id ascending with the paging envelope by default', async () => {
      const data = await list('');
      assert.deepEqual(Object.keys(data), ['items', 'total', 'page', 'page_size']);
      assert.equal(data.total, 25);
      assert.equal(data.page, 1);
      assert.equal(data.page_size, 20);
      assert.deepEqual(data.items, created.slice(0, 20));
    });

    void it('serves later pages and an empty page past the end', async () => {
      assert.deepEqual((await list('?page=2')).items, created.slice(20));
      const third = await list('?page=3&page_size=10');
      assert.deepEqual(third.items, created.slice(20));
      assert.equal(third.page, 3);
      assert.equal(third.page_size, 10);
      const beyond = await list('?page=50');
      assert.deepEqual(beyond.items, []);
      assert.equal(beyond.total, 25);
      assert.equal(beyond.page, 50);
    });

    void it('orders by id even after updates', async () => {
      await api.call('PUT', `/materials/${created[0]!.id}`, { name: 'Zz renamed' });
      const ids = (await list('?page_size=100')).items.map((item) => item.id);
      assert.deepEqual(
        ids,
        created.map((material) => material.id),
      );
      await api.call('PUT', `/materials/${created[0]!.id}`, { name: NAMES[0] });
    });

    void it('clamps page and page_size and echoes the values used', async () => {
      const cases: [query: string, page: number, pageSize: number, count: number][] = [
        ['?page=0', 1, 20, 20],
        ['?page=-3', 1, 20, 20],
        ['?page_size=0', 1, 20, 20],
        ['?page_size=-5', 1, 20, 20],
        ['?page_size=101', 1, 100, 25],
        ['?page_size=1000&page=-1', 1, 100, 25],
        ['?page_size=1&page=7', 7, 1, 1],
      ];
      for (const [query, page, pageSize, count] of cases) {
        const data = await list(query);
        assert.deepEqual([data.page, data.page_size, data.items.length], [page, pageSize, count], query);
      }
      assert.equal((await list('?page_size=1&page=7')).items[0]!.id, created[6]!.id);
    });

    void it('filters by a case-insensitive substring of the name', async () => {
      const red = await list('?name=red');
      assert.deepEqual(names(red.items), ['Red brick', 'dark RED']);
      assert.equal(red.total, 2);
      assert.deepEqual(names((await list('?name=WOOL')).items), ['100% wool', '100 wool']);
      assert.deepEqual(names((await list('?name=cer')).items), ['Ceramic']);
      assert.equal((await list('?name=nothing-like-this')).total, 0);
    });

    void it('folds case and accents in every script: ß is SS, É is é and e, on both databases', async () => {
      const street = await api.create({ name: 'Straße grey' });
      const nut = await api.create({ name: 'ÉCROU zinc' });
      try {
        assert.deepEqual(names((await list('?name=STRASSE')).items), ['Straße grey']);
        assert.deepEqual(names((await list(`?name=${encodeURIComponent('straße')}`)).items), ['Straße grey']);
        assert.deepEqual(names((await list(`?name=${encodeURIComponent('écrou')}`)).items), ['ÉCROU zinc']);
        // Accents are folded away too.
        assert.deepEqual(names((await list('?name=ecrou')).items), ['ÉCROU zinc']);
        // A rename folds the new name.
        await api.call('PUT', `/materials/${nut.id}`, { name: 'Größe' });
        assert.deepEqual(names((await list(`?name=${encodeURIComponent('GRÖSSE')}`)).items), ['Größe']);
        assert.equal((await list(`?name=${encodeURIComponent('écrou')}`)).total, 0);
      } finally {
        await api.call('DELETE', `/materials/${street.id}`);
        await api.call('DELETE', `/materials/${nut.id}`);
      }
    });

    void it('treats % _ and \\ in the filter as literal characters', async () => {
      assert.deepEqual(names((await list('?name=100%25')).items), ['100% wool']);
      assert.deepEqual(names((await list('?name=%25')).items), ['100% wool']);
      assert.deepEqual(names((await list('?name=a_b')).items), ['a_b']);
      assert.deepEqual(names((await list('?name=_')).items), ['a_b']);
      assert.deepEqual(names((await list(`?name=${encodeURIComponent('\\textures\\')}`)).items), [
        'C:\\textures\\oak',
      ]);
    });

    void it('pages within the filtered set, counting only matches', async () => {
      const data = await list('?name=filler&page=2&page_size=5');
      assert.equal(data.total, 16);
      assert.deepEqual(names(data.items), ['Filler 5', 'Filler 6', 'Filler 7', 'Filler 8', 'Filler 9']);
    });

    void it('shows every material when the filter is empty', async () => {
      assert.equal((await list('?name=')).total, 25);
    });
  });
}
