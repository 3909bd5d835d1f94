// Case-insensitive search beyond ASCII: accented capitals, decomposed accents, Greek sigmas and the German sharp s,
// on both databases, by the folded copies of name, description and file name the repository writes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { catalogApi } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

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
      testApp.startJobRunner();
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

    void it('finds accented text without its accents, and the other way round', async () => {
      assert.deepEqual(await names('ecole'), ['École primaire']);
      assert.deepEqual(await names('CAFE DU'), ['Plain']);
      assert.deepEqual(await names('hauptstrasse'), ['Hauptstraße 5']);
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

    void it("searches a model's file name by the file of the version it serves", async () => {
      const [greek] = (await api.call('GET', `?search=${encodeURIComponent('greek.obj')}`)).json.data as {
        id: string;
      }[];
      await waitForStatus(testApp.app, greek!.id, ['completed']);
      const posted = await api.postForm(
        `/${greek!.id}/versions`,
        {},
        { field: 'file', filename: 'Überbau.obj', data: OBJ },
      );
      assert.equal(posted.status, 202, posted.text);
      const deadline = Date.now() + 60_000;
      for (;;) {
        const version = await api.call('GET', `/${greek!.id}/versions/2`);
        if (version.json.data?.status === 'completed') break;
        assert.notEqual(version.json.data?.status, 'failed', version.text);
        assert.ok(Date.now() < deadline, `version 2 stuck: ${version.text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(await names('ÜBERBAU.OBJ'), ['ΟΔΟΣ ΑΘΗΝΑΣ']);
      assert.deepEqual(await names('greek.obj'), []);
    });
  });
}
