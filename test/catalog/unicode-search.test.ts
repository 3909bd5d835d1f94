// Case-insensitive search beyond ASCII: accented capitals, decomposed accents, Greek sigmas and the German sharp s,
// on both databases, by the folded copies of name, description and file name the repository writes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const OBJ = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';

// Names and descriptions chosen so each search below has one right answer.
const UPLOADS: { filename: string; name: string; description?: string }[] = [
  { filename: 'school.obj', name: 'École primaire' },
  { filename: 'street.obj', name: 'Hauptstraße 5' },
  { filename: 'cafe.obj', name: 'Plain', description: 'Cafe\u0301 du coin' },
  { filename: 'greek.obj', name: 'ΟΔΟΣ ΑΘΗΝΑΣ' },
];

for (const dialect of testDialects()) {
  void describe(`searching models beyond ASCII (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      for (const upload of UPLOADS) {
        const fields: Record<string, string> = { name: upload.name };
        if (upload.description) fields.description = upload.description;
        await api.create(upload.filename, OBJ, fields);
      }
    });
    after(() => testApp.close());

    const names = async (search: string) => {
      const response = await api.call('GET', `?search=${encodeURIComponent(search)}`);
      assert.equal(response.status, 200, `${search}: ${response.text}`);
      return (response.json.data as { name: string }[]).map((model) => model.name).sort();
    };

    void it('finds lower-case accented text from capitals and the other way round', async () => {
      assert.deepEqual(await names('ÉCOLE'), ['École primaire']);
      assert.deepEqual(await names('école'), ['École primaire']);
      // The final sigma of the search is the middle one of the name's "ΑΘΗΝΑΣ" once folded.
      assert.deepEqual(await names('οδος'), ['ΟΔΟΣ ΑΘΗΝΑΣ']);
      assert.deepEqual(await names('αθηνας'), ['ΟΔΟΣ ΑΘΗΝΑΣ']);
    });

    void it('matches a composed accent with a decomposed one', async () => {
      assert.deepEqual(await names('CAFÉ'), ['Plain']);
    });

    void it('matches the sharp s with SS, as Unicode case folding does', async () => {
      assert.deepEqual(await names('STRASSE'), ['Hauptstraße 5']);
      assert.deepEqual(await names('straße'), ['Hauptstraße 5']);
      assert.deepEqual(await names('STRAẞE'), ['Hauptstraße 5']);
    });

    void it('searches a changed name and description by their new text only', async () => {
      const [school] = (await api.call('GET', `?search=${encodeURIComponent('école')}`)).json.data as {
        id: string;
      }[];
      const patched = await api.call('PATCH', `/${school!.id}`, {
        name: 'LYCÉE',
        description: 'Ancienne ÉCOLE',
      });
      assert.equal(patched.status, 200, patched.text);
      assert.deepEqual(await names('lycée'), ['LYCÉE']);
      assert.deepEqual(await names('primaire'), []);
      assert.deepEqual(await names('ancienne école'), ['LYCÉE']);
    });
  });
}
