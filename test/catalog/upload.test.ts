import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { boxTexturedZip, catalogApi, catalogError, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { multipartForm } from '../helpers/multipart.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** An OBJ triangle padded with a comment to exactly `size` bytes. */
function objOfSize(size: number): string {
  const body = 'v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n';
  return body + `#${'x'.repeat(size - body.length - 2)}\n`;
}

/** Files left anywhere under a folder (empty when it does not exist). */
function filesUnder(folder: string): string[] {
  if (!fs.existsSync(folder)) return [];
  return fs
    .readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => entry.name);
}

for (const dialect of testDialects()) {
  void describe(`model upload (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    /** Asserts the refused uploads left no model, no stored file and no temporary upload behind. */
    const assertNothingStored = async (before: number) => {
      const list = await api.call('GET', '');
      assert.equal(list.json.meta.total, before, 'no model was recorded');
      const jobs = await testApp.database.db.selectFrom('jobs').select('id').execute();
      assert.equal(jobs.length, before, 'no job was queued');
      const stored = filesUnder(path.join(testApp.config.dataDir, 'files', 'models'));
      assert.equal(stored.length, before, `only the accepted uploads are stored: ${stored.join(', ')}`);
      assert.deepEqual(filesUnder(path.join(testApp.config.dataDir, 'tmp', 'uploads')), []);
    };

    void it('accepts a GLB: 201, pending, with its format, size, file name and a name from the file name', async () => {
      const bytes = sample('glb/CesiumMilkTruck.glb');
      const created = await api.upload('CesiumMilkTruck.glb', bytes);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.success, true);
      const model = created.json.data;
      assert.match(model.id, UUID);
      assert.equal(model.name, 'CesiumMilkTruck');
      assert.equal(model.description, '');
      assert.equal(model.original_filename, 'CesiumMilkTruck.glb');
      assert.equal(model.format, 'glb');
      assert.equal(model.file_size, bytes.length);
      assert.equal(model.status, 'pending');
      assert.equal(model.progress, 0);
      assert.equal(model.error, null);
      assert.equal(model.model_url, null);
      assert.equal(model.thumbnail_url, null);
      assert.deepEqual(model.lods, []);
      assert.deepEqual(model.tags, []);
      assert.match(model.created_at, ISO_MS);
      assert.equal(model.updated_at, model.created_at);

      const read = await api.call('GET', `/${model.id}`);
      assert.equal(read.status, 200);
      assert.deepEqual(read.json, { success: true, data: model });
      const stored = filesUnder(path.join(testApp.config.dataDir, 'files', 'models', model.id));
      assert.equal(stored.length, 1, 'the original is stored under the model');
      const jobs = await testApp.database.db
        .selectFrom('jobs')
        .select(['name', 'status'])
        .where('subject', '=', model.id)
        .execute();
      assert.deepEqual(jobs, [{ name: 'convert-model', status: 'queued' }]);
    });

    void it('takes the name and description fields when given', async () => {
      const created = await api.upload('CesiumMilkTruck.glb', sample('glb/CesiumMilkTruck.glb'), {
        name: '  Milk truck  ',
        description: 'A truck with a tank',
      });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.data.name, 'Milk truck');
      assert.equal(created.json.data.description, 'A truck with a tank');
      const blank = await api.upload('CesiumMilkTruck.glb', sample('glb/CesiumMilkTruck.glb'), {
        name: '   ',
      });
      assert.equal(blank.json.data.name, 'CesiumMilkTruck', 'a blank name falls back to the file name');
    });

    void it('keeps only the base name of a file name that carries folders', async () => {
      for (const filename of ['../../etc/truck.glb', 'C:\\Users\\me\\truck.glb']) {
        const created = await api.upload(filename, sample('glb/CesiumMilkTruck.glb'));
        assert.equal(created.status, 201, created.text);
        assert.equal(created.json.data.original_filename, 'truck.glb', filename);
        assert.equal(created.json.data.name, 'truck', filename);
      }
    });

    void it('accepts a .gltf zipped with its .bin and .png as format gltf', async () => {
      const zip = boxTexturedZip();
      const created = await api.upload('BoxTextured.zip', zip);
      assert.equal(created.status, 201, created.text);
      assert.equal(created.json.data.format, 'gltf');
      assert.equal(created.json.data.name, 'BoxTextured');
      assert.equal(created.json.data.original_filename, 'BoxTextured.zip');
      assert.equal(created.json.data.file_size, zip.length);
    });

    void it('refuses unsupported files with 400 `Unsupported model format` and stores nothing', async () => {
      const before = (await api.call('GET', '')).json.meta.total as number;
      const refusals: [string, Uint8Array | string][] = [
        ['notes.txt', 'just some text, not a model\n'],
        ['random.glb', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 256))],
        ['truck.stl', sample('glb/CesiumMilkTruck.glb')],
        ['archive.zip', Buffer.from('PK\u0003\u0004 but not really a zip')],
        ['noextension', Buffer.from('plain text')],
      ];
      for (const [filename, data] of refusals) {
        const response = await api.upload(filename, data);
        assert.equal(response.status, 400, filename);
        assert.equal(response.text, catalogError('Unsupported model format'), filename);
      }
      await assertNothingStored(before);
    });

    void it('refuses a request without a file with 400', async () => {
      const before = (await api.call('GET', '')).json.meta.total as number;
      const fieldsOnly = await api.postForm('', { name: 'no file' });
      assert.equal(fieldsOnly.status, 400);
      assert.equal(fieldsOnly.text, catalogError('No model file provided'));
      const wrongField = await api.postForm(
        '',
        {},
        { field: 'model', filename: 'a.glb', data: sample('glb/CesiumMilkTruck.glb') },
      );
      assert.equal(wrongField.status, 400);
      assert.equal(wrongField.text, catalogError('No model file provided'));
      const json = await api.call('POST', '', { file: 'a.glb' });
      assert.equal(json.status, 400);
      assert.equal(json.json.success, false);
      await assertNothingStored(before);
    });

    // A body cut off inside the file once left the request unanswered for ever; the timeout turns a hang into a failure.
    void it(
      'answers 400 to a multipart body that ends early or has no boundary',
      { timeout: 20_000 },
      async () => {
        const before = (await api.call('GET', '')).json.meta.total as number;
        const form = multipartForm(
          { name: 'cut' },
          { field: 'file', filename: 'a.obj', data: objOfSize(5000) },
        );
        const bodies: [label: string, headers: Record<string, string>, payload: Buffer][] = [
          ['cut inside the file', form.headers, form.payload.subarray(0, form.payload.length - 30)],
          ['cut after the file data', form.headers, form.payload.subarray(0, form.payload.length - 10)],
          ['cut early in the file', form.headers, form.payload.subarray(0, form.payload.length - 4000)],
          ['no boundary', { 'content-type': 'multipart/form-data' }, form.payload],
        ];
        for (const [label, headers, payload] of bodies) {
          const response = await testApp.app.inject({
            method: 'POST',
            url: '/api/models',
            headers: { ...testApp.auth, 'content-type': headers['content-type']! },
            payload,
          });
          assert.equal(response.statusCode, 400, label);
          assert.equal(response.body, catalogError('Malformed multipart body'), label);
        }
        await assertNothingStored(before);
      },
    );

    void it('refuses a name over 255 characters or a description over 10,000', async () => {
      const before = (await api.call('GET', '')).json.meta.total as number;
      const obj = objOfSize(200);
      const longName = await api.upload('a.obj', obj, { name: 'n'.repeat(256) });
      assert.equal(longName.status, 400);
      assert.match(longName.json.error, /^name /);
      const longDescription = await api.upload('a.obj', obj, { description: 'd'.repeat(10_001) });
      assert.equal(longDescription.status, 400);
      assert.match(longDescription.json.error, /^description /);
      await assertNothingStored(before);
    });
  });

  void describe(`model upload over MAX_UPLOAD_BYTES (${dialect})`, () => {
    let testApp: TestApp;
    before(async () => {
      testApp = await createTestApp(dialect, { MAX_UPLOAD_BYTES: '1000' });
    });
    after(() => testApp.close());

    void it('answers 413 `File too large` one byte over the limit, stores nothing, and accepts the limit itself', async () => {
      const api = catalogApi(testApp.app, testApp.auth);
      for (const [filename, data] of [
        ['over.obj', objOfSize(1001)],
        ['truck.glb', sample('glb/CesiumMilkTruck.glb')],
      ] as const) {
        const response = await api.upload(filename, data);
        assert.equal(response.status, 413, filename);
        assert.equal(response.text, catalogError('File too large'));
      }
      assert.equal((await api.call('GET', '')).json.meta.total, 0);
      assert.deepEqual(filesUnder(path.join(testApp.config.dataDir, 'files')), []);
      assert.deepEqual(filesUnder(path.join(testApp.config.dataDir, 'tmp', 'uploads')), []);

      const atLimit = await api.upload('exact.obj', objOfSize(1000));
      assert.equal(atLimit.status, 201, atLimit.text);
      assert.equal(atLimit.json.data.file_size, 1000);
      assert.equal(atLimit.json.data.format, 'obj');
    });
  });
}
