// Resumable uploads over real HTTP: tus chunks, a connection cut mid-chunk and resumed from the server's offset,
// the finished upload made a model through POST /api/models and converted; token, size and id refusals.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { UPLOAD_BUSY, UPLOAD_NOT_FOUND } from '../../src/uploads/finished-uploads.ts';
import { catalogApi, catalogError, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { tusClient, uploadIdOf, type TusClient } from '../helpers/tus-client.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';

const TRUCK = 'glb/CesiumMilkTruck.glb';
const MAX_UPLOAD_BYTES = 2_000_000;

for (const dialect of testDialects()) {
  void describe(`resumable uploads (${dialect})`, () => {
    let testApp: TestApp;
    let baseUrl: string;
    let tus: TusClient;
    let api: ReturnType<typeof catalogApi>;

    before(async () => {
      testApp = await createTestApp(dialect, { MAX_UPLOAD_BYTES: String(MAX_UPLOAD_BYTES) });
      baseUrl = await testApp.app.listen({ port: 0, host: '127.0.0.1' });
      tus = tusClient(baseUrl, testApp.auth);
      api = catalogApi(testApp.app, testApp.auth);
    });
    after(() => testApp.close());

    const uploadDir = () => path.join(testApp.config.dataDir, 'uploads');
    const fromUpload = (body: object) => api.call('POST', '', body);

    /** Creates an upload of `bytes` named `filename` and sends it whole; returns its upload id. */
    const uploadWhole = async (filename: string, bytes: Uint8Array): Promise<string> => {
      const created = await tus.create(bytes.length, { filename });
      assert.equal(created.status, 201, created.text);
      const sent = await tus.patch(created.location, 0, bytes);
      assert.equal(sent?.status, 204, sent?.text);
      return uploadIdOf(created.location);
    };

    void it('resumes a chunked upload after a dropped connection and makes it a model that converts', async () => {
      const bytes = sample(TRUCK);
      const half = Math.floor(bytes.length / 2);
      const created = await tus.create(bytes.length, {
        filename: 'CesiumMilkTruck.glb',
        filetype: 'model/gltf-binary',
      });
      assert.equal(created.status, 201, created.text);
      assert.match(created.location, /^\/api\/uploads\/[A-Za-z0-9_-]+$/);
      const id = uploadIdOf(created.location);

      const first = await tus.patch(created.location, 0, bytes.subarray(0, 128 * 1024));
      assert.equal(first?.status, 204, first?.text);
      assert.equal(first?.headers['upload-offset'], String(128 * 1024));

      // The connection goes mid-chunk, at about half of the file; the server keeps what arrived.
      const cut = await tus.patch(created.location, 128 * 1024, bytes.subarray(128 * 1024), {
        dropAfterBytes: half - 128 * 1024,
      });
      assert.equal(cut, undefined);
      const resumed = await tus.head(created.location);
      assert.equal(resumed.status, 200, resumed.text);
      assert.equal(resumed.headers['upload-length'], String(bytes.length));
      assert.ok(
        resumed.offset > 128 * 1024 && resumed.offset <= half,
        `the server kept the bytes before the cut (offset ${resumed.offset}, cut at ${half})`,
      );
      assert.deepEqual(
        fs.readFileSync(path.join(uploadDir(), id)).subarray(0, resumed.offset),
        bytes.subarray(0, resumed.offset),
      );

      const early = await fromUpload({ upload_id: id });
      assert.equal(early.status, 409);
      assert.equal(
        early.text,
        catalogError(`Upload is not finished: ${resumed.offset} of ${bytes.length} bytes received`),
      );

      const stale = await tus.patch(created.location, 0, bytes.subarray(0, 1024));
      assert.equal(stale?.status, 409, 'a chunk at the wrong offset is refused');
      const rest = await tus.patch(created.location, resumed.offset, bytes.subarray(resumed.offset));
      assert.equal(rest?.status, 204, rest?.text);
      assert.equal(rest?.headers['upload-offset'], String(bytes.length));

      const made = await fromUpload({
        upload_id: id,
        name: 'Truck',
        description: 'resumed',
        unit: 'cm',
        up: 'z',
      });
      assert.equal(made.status, 201, made.text);
      const model = made.json.data;
      assert.equal(model.name, 'Truck');
      assert.equal(model.description, 'resumed');
      assert.equal(model.original_filename, 'CesiumMilkTruck.glb');
      assert.equal(model.format, 'glb');
      assert.equal(model.file_size, bytes.length);
      assert.equal(model.status, 'pending');
      assert.deepEqual(fs.readdirSync(uploadDir()), [], 'the upload is consumed once it is a model');
      assert.equal((await tus.head(created.location)).status, 404);

      // A retry (its first answer lost, say) answers the same model, and makes no second one.
      const again = await fromUpload({ upload_id: id });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.data.id, model.id);
      assert.equal((await api.call('GET', '')).json.meta.total, 1, 'the second POST made no second model');

      testApp.startJobRunner();
      const converted = await waitForStatus(testApp.app, model.id, ['completed', 'failed']);
      assert.equal(converted.status, 'completed', converted.error);
      assert.ok(converted.lods.length > 0);
    });

    void it('refuses requests without a token, with a wrong one, and uploads with a read token', async () => {
      const anonymous = tusClient(baseUrl, {});
      const missing = await anonymous.create(10, { filename: 'a.stl' });
      assert.equal(missing.status, 401);
      assert.equal(missing.text, catalogError('missing API token'));
      const wrong = await tusClient(baseUrl, { 'x-api-token': 'not-the-token' }).create(10, {
        filename: 'a.stl',
      });
      assert.equal(wrong.status, 401);
      assert.equal(wrong.text, catalogError('invalid API token'));

      const issued = await testApp.app.inject({
        method: 'POST',
        url: '/api/tokens',
        headers: { ...testApp.auth, 'content-type': 'application/json' },
        payload: { name: 'viewer', scope: 'read' },
      });
      assert.equal(issued.statusCode, 201, issued.body);
      const reader = tusClient(baseUrl, { 'x-api-token': JSON.parse(issued.body).data.token as string });
      const refused = await reader.create(10, { filename: 'a.stl' });
      assert.equal(refused.status, 403);
      assert.equal(refused.text, catalogError('token is read-only'));

      const created = await tus.create(10, { filename: 'a.stl' });
      const patched = await reader.patch(created.location, 0, new Uint8Array(10));
      assert.equal(patched?.status, 403, 'a read token may not send chunks either');
      assert.equal((await anonymous.head(created.location)).status, 401);
      assert.equal((await reader.head(created.location)).offset, 0, 'a read token may look at the offset');
      assert.equal((await tus.send('DELETE', created.location)).status, 204);
    });

    void it('enforces MAX_UPLOAD_BYTES on the announced length and on the bytes sent', async () => {
      const options = await tus.send('OPTIONS', '/api/uploads');
      assert.equal(options.headers['tus-max-size'], String(MAX_UPLOAD_BYTES));
      const tooBig = await tus.create(MAX_UPLOAD_BYTES + 1, { filename: 'big.stl' });
      assert.equal(tooBig.status, 413, tooBig.text);
      assert.equal(tooBig.headers.location, undefined);

      // An upload whose length comes later (creation-defer-length) is cut at the limit as its bytes arrive.
      const deferred = await tus.send('POST', '/api/uploads', { 'upload-defer-length': '1' });
      assert.equal(deferred.status, 201, deferred.text);
      const location = String(deferred.headers.location);
      const over = await tus.patch(location, 0, new Uint8Array(MAX_UPLOAD_BYTES + 1024));
      assert.equal(over?.status, 413, over?.text);
      const held = await tus.head(location);
      assert.ok(held.offset <= MAX_UPLOAD_BYTES, `no more than the limit is stored (${held.offset})`);
      assert.equal((await tus.send('DELETE', location)).status, 204);
      assert.deepEqual(fs.readdirSync(uploadDir()), []);
    });

    void it('answers an unknown, malformed or missing upload_id in the catalog envelope', async () => {
      const unknown = await fromUpload({ upload_id: '0123456789abcdef0123456789abcdef' });
      assert.equal(unknown.status, 404);
      assert.equal(unknown.text, catalogError(UPLOAD_NOT_FOUND));
      const malformed = await fromUpload({ upload_id: '../files/x' });
      assert.equal(malformed.status, 400);
      assert.equal(malformed.json.success, false);
      assert.match(malformed.json.error, /upload_id/);
      const missing = await fromUpload({ name: 'no upload' });
      assert.equal(missing.status, 400);
      assert.match(missing.json.error, /upload_id/);
      const wrongType = await fromUpload({ upload_id: 42 });
      assert.equal(wrongType.status, 400);
    });

    void it('keeps an upload the catalog refuses, so a corrected request can make it a model', async () => {
      const bytes = sample('stl/cyl_w_rect_hole.stl');
      const id = await uploadWhole('part.stl', bytes);
      const badUnit = await fromUpload({ upload_id: id, unit: 'furlong' });
      assert.equal(badUnit.status, 400);
      assert.equal(badUnit.text, catalogError('unit must be one of mm, cm, m, in, ft'));
      const made = await fromUpload({ upload_id: id, unit: 'MM' });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.json.data.unit, 'mm');
      assert.equal(made.json.data.name, 'part');

      const text = await uploadWhole('notes.txt', Buffer.from('just some text, not a model\n'));
      const unsupported = await fromUpload({ upload_id: text });
      assert.equal(unsupported.status, 400);
      assert.equal(unsupported.text, catalogError('Unsupported model format'));
      assert.equal(
        fs
          .readdirSync(path.join(testApp.config.dataDir, 'tmp', 'uploads'))
          .flatMap((dir) => fs.readdirSync(path.join(testApp.config.dataDir, 'tmp', 'uploads', dir))).length,
        0,
        'no temporary copy is left behind',
      );
      assert.equal((await tus.send('DELETE', `/api/uploads/${text}`)).status, 204);
    });

    void it('makes one model of an upload that two requests claim at once', async () => {
      const id = await uploadWhole('twice.glb', sample(TRUCK));
      const before = (await api.call('GET', '')).json.meta.total as number;
      const answers = await Promise.all([fromUpload({ upload_id: id }), fromUpload({ upload_id: id })]);
      const made = answers.find((answer) => answer.status === 201);
      assert.ok(made, answers.map((answer) => answer.text).join('\n'));
      // The other finds the upload held (409), or already a model: then that model is its answer.
      const other = answers.find((answer) => answer !== made)!;
      if (other.status === 409) assert.equal(other.text, catalogError(UPLOAD_BUSY));
      else assert.equal(other.json?.data?.id, made.json.data.id, `${other.status} ${other.text}`);
      assert.equal((await api.call('GET', '')).json.meta.total, before + 1);
    });
  });
}
