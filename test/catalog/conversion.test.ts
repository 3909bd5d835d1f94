import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { QueueConsumer } from '../../src/jobs/queue.ts';
import { makeTraversalZip, makeZip, makeZipBomb } from '../fixtures/make-zip.ts';
import {
  boxTexturedZip,
  catalogApi,
  catalogError,
  pathOf,
  sample,
  withoutSignatures,
} from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';

const CONVERSION_TIMEOUT_MS = 180_000;
const NOT_READY = 'Model not ready or not found';

/** Width and height from a PNG's IHDR chunk, after checking the signature and the chunk type. */
function pngSize(bytes: Buffer): { width: number; height: number } {
  assert.deepEqual(
    [...bytes.subarray(0, 8)],
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
    'PNG signature',
  );
  assert.equal(bytes.toString('latin1', 12, 16), 'IHDR');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

for (const dialect of testDialects()) {
  // Each sample is converted once here and the tests below read the results in order.
  void describe(`conversion, parts, files and thumbnails with the worker running (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    let worker: QueueConsumer;
    let truck: ModelJson;
    let box: ModelJson;

    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
      worker = testApp.startJobRunner();
      const truckId = (await api.create('CesiumMilkTruck.glb', sample('glb/CesiumMilkTruck.glb'))).id;
      const boxId = (await api.create('BoxTextured.zip', boxTexturedZip())).id;
      truck = await waitForStatus(testApp.app, truckId, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      box = await waitForStatus(testApp.app, boxId, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
    });
    after(() => testApp.close());

    const get = (url: string, headers: Record<string, string> = {}) =>
      testApp.app.inject({ method: 'GET', url: pathOf(url), headers });
    const fileOf = (url: string) =>
      path.join(
        testApp.config.dataDir,
        'files',
        decodeURIComponent(new URL(url).pathname.replace(/^\/files\//, '')),
      );
    const modelFiles = (id: string) =>
      fs
        .readdirSync(path.join(testApp.config.dataDir, 'files', 'models', id), {
          recursive: true,
          withFileTypes: true,
        })
        .filter((entry) => entry.isFile())
        .map((entry) => entry.name)
        .sort();
    const read = async (id: string): Promise<ModelJson> => (await api.call('GET', `/${id}`)).json.data;
    const queuedThumbnailJobs = async (id: string) =>
      testApp.database.db
        .selectFrom('jobs')
        .select(['payload', 'status'])
        .where('name', '=', 'render-thumbnail')
        .where('subject', '=', id)
        .execute();

    void it('converts the GLB: completed, progress 100, three LODs each smaller or served by the finer', () => {
      assert.equal(truck.status, 'completed', truck.error);
      assert.equal(truck.progress, 100);
      assert.equal(truck.error, null);
      assert.equal(truck.format, 'glb');
      assert.deepEqual(
        truck.lods.map((lod: ModelJson) => lod.level),
        [0, 1, 2],
      );
      const [lod0, lod1, lod2] = truck.lods as ModelJson[];
      assert.equal(lod0!.reduced, false);
      // A level that could not shrink enough is the finer level's file again, marked so.
      for (const [finer, lod] of [
        [lod0, lod1],
        [lod1, lod2],
      ] as const) {
        assert.equal(typeof lod!.reduced, 'boolean');
        if (lod!.reduced) {
          assert.ok(lod!.triangle_count < finer!.triangle_count, `LOD ${lod!.level} has fewer triangles`);
          assert.ok(lod!.size < finer!.size, `LOD ${lod!.level} is smaller`);
        } else {
          assert.equal(lod!.url, finer!.url);
          assert.equal(lod!.size, finer!.size);
          assert.equal(lod!.triangle_count, finer!.triangle_count);
        }
      }
      assert.equal(truck.model_url, lod0!.url);
      assert.equal(truck.triangle_count, lod0!.triangle_count);
      assert.ok(truck.vertex_count > 0);
      assert.equal(truck.bounds.min.length, 3);
      for (let axis = 0; axis < 3; axis++) assert.ok(truck.bounds.min[axis] < truck.bounds.max[axis]);
      assert.match(new URL(truck.thumbnail_url).pathname, /\.png$/);
    });

    void it('converts a .gltf zipped with its .bin and texture', () => {
      assert.equal(box.status, 'completed', box.error);
      assert.equal(box.progress, 100);
      assert.equal(box.format, 'gltf');
      assert.deepEqual(
        box.lods.map((lod: ModelJson) => lod.level),
        [0, 1, 2],
      );
      // Twelve triangles are too few to simplify, so every level keeps them.
      assert.deepEqual(
        box.lods.map((lod: ModelJson) => lod.triangle_count),
        [12, 12, 12],
      );
      assert.equal(box.model_url, box.lods[0].url);
      // Nothing to remove, so LOD 1 and 2 are LOD 0's file: stored once, said so.
      assert.deepEqual(
        box.lods.map((lod: ModelJson) => [lod.url, lod.reduced]),
        [
          [box.model_url, false],
          [box.model_url, false],
          [box.model_url, false],
        ],
      );
      assert.equal(box.part_count, 1);
    });

    void it('answers /url, /lod and /lod/:level of a completed model', async () => {
      const url = await api.call('GET', `/${truck.id}/url`);
      assert.deepEqual(
        withoutSignatures(url.json),
        withoutSignatures({ success: true, data: { url: truck.model_url } }),
      );
      const lods = await api.call('GET', `/${truck.id}/lod`);
      assert.deepEqual(withoutSignatures(lods.json), withoutSignatures({ success: true, data: truck.lods }));
      for (const lod of truck.lods as ModelJson[]) {
        const one = await api.call('GET', `/${truck.id}/lod/${lod.level}`);
        assert.deepEqual(
          withoutSignatures(one.json),
          withoutSignatures({ success: true, data: { url: lod.url, level: lod.level } }),
        );
      }
      const bad = await api.call('GET', `/${truck.id}/lod/3`);
      assert.equal(bad.text, catalogError('Invalid LOD level. Must be 0, 1, or 2.'));
    });

    void it('lists the parts in scene order with group ids, names, paths, counts and bounds', async () => {
      for (const model of [truck, box]) {
        const parts = (await api.call('GET', `/${model.id}/parts`)).json.data as ModelJson[];
        assert.equal(parts.length, model.part_count);
        assert.ok(parts.length > 0);
        let triangles = 0;
        parts.forEach((part, index) => {
          assert.equal(part.group_id, `${model.id}:${index}`);
          assert.equal(typeof part.name, 'string');
          assert.equal(typeof part.path, 'string');
          assert.ok(Number.isInteger(part.triangle_count) && part.triangle_count > 0);
          assert.ok(Number.isInteger(part.vertex_count) && part.vertex_count > 0);
          for (let axis = 0; axis < 3; axis++) {
            assert.ok(part.bounds.min[axis] <= part.bounds.max[axis]);
            assert.ok(part.bounds.min[axis] >= model.bounds.min[axis] - 1e-6, 'inside the model bounds');
            assert.ok(part.bounds.max[axis] <= model.bounds.max[axis] + 1e-6, 'inside the model bounds');
          }
          assert.equal(part.material, null);
          triangles += part.triangle_count;
        });
        assert.equal(triangles, model.triangle_count, 'the parts hold every triangle');
      }
      const names = ((await api.call('GET', `/${truck.id}/parts`)).json.data as ModelJson[]).map(
        (p) => p.name,
      );
      assert.ok(names.includes('Wheels'), names.join(', '));
    });

    void it('shows the material bound to a part', async () => {
      const parts = (await api.call('GET', `/${truck.id}/parts`)).json.data as ModelJson[];
      const paint = await materials.create({ name: 'paint', diffuse_r: 200, diffuse_g: 30, diffuse_b: 30 });
      await materials.bind(paint.id, [parts[0]!.group_id]);
      const after = (await api.call('GET', `/${truck.id}/parts`)).json.data as ModelJson[];
      assert.equal(after[0]!.material.id, paint.id);
      assert.equal(after[0]!.material.name, 'paint');
      assert.equal(after[0]!.material.diffuse_r, 200);
      for (const part of after.slice(1)) assert.equal(part.material, null);
      const { material: _bound, ...rest } = after[0]!;
      const { material: _none, ...before } = parts[0]!;
      assert.deepEqual(rest, before);
    });

    void it('serves a LOD at its signed URL without a token as model/gltf-binary with ETag, ranges and private caching', async () => {
      const lod0 = truck.lods[0] as ModelJson;
      const whole = await get(lod0.url);
      assert.equal(whole.statusCode, 200);
      assert.equal(whole.headers['content-type'], 'model/gltf-binary');
      assert.equal(whole.rawPayload.length, lod0.size);
      assert.equal(whole.rawPayload.toString('latin1', 0, 4), 'glTF');
      // Reused until the signature expires, and only by this client: the answer needed the signature.
      assert.match(String(whole.headers['cache-control']), /^private, max-age=\d+$/);
      assert.equal(
        whole.headers['access-control-allow-origin'],
        '*',
        'viewers on other origins may fetch it',
      );
      const etag = whole.headers.etag;
      assert.ok(typeof etag === 'string' && etag.length > 2, 'an ETag');

      const range = await get(lod0.url, { range: 'bytes=0-3' });
      assert.equal(range.statusCode, 206);
      assert.equal(range.body, 'glTF');
      assert.equal(range.headers['content-range'], `bytes 0-3/${lod0.size}`);

      const cached = await get(lod0.url, { 'if-none-match': etag });
      assert.equal(cached.statusCode, 304);

      for (const lod of truck.lods as ModelJson[]) {
        const served = await get(lod.url);
        assert.equal(served.statusCode, 200);
        assert.equal(served.rawPayload.length, lod.size);
      }
    });

    void it('serves the thumbnail as a 512×512 PNG', async () => {
      for (const model of [truck, box]) {
        const served = await get(model.thumbnail_url);
        assert.equal(served.statusCode, 200);
        assert.equal(served.headers['content-type'], 'image/png');
        assert.deepEqual(pngSize(served.rawPayload), { width: 512, height: 512 });
      }
    });

    void it('queues one thumbnail job however often regeneration is asked while it waits', async () => {
      // No worker, so the job stays queued.
      await worker.stop();
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await api.call('POST', `/${truck.id}/regenerate-thumbnail`);
        assert.equal(response.status, 200);
        assert.equal(
          response.text,
          JSON.stringify({ success: true, message: 'Thumbnail regeneration job queued' }),
        );
      }
      // Bindings made earlier in this suite queued refreshes of their own (`after_bindings`), kept apart.
      const jobs = (await queuedThumbnailJobs(truck.id)).filter(
        (job) => JSON.parse(job.payload).after_bindings === undefined,
      );
      assert.equal(jobs.length, 1);
      assert.equal(jobs[0]!.status, 'queued');
      // The render reads the model's stored files when it runs: the payload names no file.
      assert.deepEqual(JSON.parse(jobs[0]!.payload), { model_id: truck.id });
    });

    void it('regenerates thumbnails with the bound materials and removes the old files', async () => {
      const [part] = (await api.call('GET', `/${box.id}/parts`)).json.data as ModelJson[];
      const red = await materials.create({ name: 'red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 });
      await materials.bind(red.id, [part!.group_id]);
      const response = await api.call('POST', `/${box.id}/regenerate-thumbnail`);
      assert.equal(response.status, 200);
      const oldBox = (await get(box.thumbnail_url)).rawPayload;
      worker = testApp.startJobRunner();

      for (const model of [truck, box]) {
        const deadline = Date.now() + CONVERSION_TIMEOUT_MS;
        while ((await queuedThumbnailJobs(model.id)).length > 0) {
          assert.ok(Date.now() < deadline, 'the thumbnail job finishes');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const now = await read(model.id);
        // Both models have a part bound to a coloured material since their first thumbnail.
        assert.notEqual(now.thumbnail_url, model.thumbnail_url, `${model.name}: a new thumbnail URL`);
        assert.equal(fs.existsSync(fileOf(model.thumbnail_url)), false, `${model.name}: old file removed`);
        assert.equal((await get(model.thumbnail_url)).statusCode, 404);
        const png = (await get(now.thumbnail_url)).rawPayload;
        assert.deepEqual(pngSize(png), { width: 512, height: 512 });
        if (model === box) assert.notDeepEqual(png, oldBox, 'the red material shows');
        assert.equal(now.status, 'completed');
        assert.deepEqual(
          withoutSignatures(now.lods),
          withoutSignatures(model.lods),
          'regeneration leaves the LODs alone',
        );
      }
      box = await read(box.id);
      truck = await read(truck.id);
    });

    void it('reprocesses a completed model: pending, 409 while converting, then completed again', async () => {
      const response = await api.call('POST', `/${box.id}/reprocess`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.success, true);
      assert.equal(response.json.data.status, 'pending');
      assert.equal(response.json.data.progress, 0);
      assert.equal(response.json.data.model_url, null);
      assert.deepEqual(response.json.data.lods, []);
      const again = await api.call('POST', `/${box.id}/reprocess`);
      assert.equal(again.status, 409);
      assert.equal(again.json.success, false);
      // A conversion takes seconds, so the model cannot be ready again yet.
      const notReady = await api.call('GET', `/${box.id}/url`);
      assert.equal(notReady.text, catalogError(NOT_READY));

      const done = await waitForStatus(testApp.app, box.id, ['completed', 'failed'], CONVERSION_TIMEOUT_MS);
      assert.equal(done.status, 'completed', done.error);
      assert.equal(done.progress, 100);
      assert.deepEqual(
        done.lods.map((lod: ModelJson) => lod.triangle_count),
        [12, 12, 12],
      );
      // Same group ids, so the binding still applies to the part.
      const parts = (await api.call('GET', `/${box.id}/parts`)).json.data as ModelJson[];
      assert.equal(parts.length, 1);
      assert.equal(parts[0]!.group_id, `${box.id}:0`);
      assert.equal(parts[0]!.material.name, 'red');
      // The upload, LOD 0 (which LOD 1 and 2 are too) and one thumbnail: nothing stale is left behind.
      const files = modelFiles(box.id);
      assert.equal(files.length, 3, files.join(', '));
      assert.equal(files.filter((name) => name.startsWith('thumbnail-')).length, 1, files.join(', '));
      assert.equal((await get(done.thumbnail_url)).statusCode, 200);
    });

    void it('moves pending → processing → completed with rising progress', async () => {
      const response = await api.call('POST', `/${truck.id}/reprocess`);
      assert.equal(response.status, 200, response.text);
      // The reprocess answer is the first state: the worker may claim the job before the next read.
      const reset = response.json.data as ModelJson;
      const seen: { status: string; progress: number }[] = [
        { status: reset.status, progress: reset.progress },
      ];
      const deadline = Date.now() + CONVERSION_TIMEOUT_MS;
      for (;;) {
        const { status, progress } = await read(truck.id);
        const last = seen.at(-1);
        if (!last || last.status !== status || last.progress !== progress) seen.push({ status, progress });
        if (status === 'completed' || status === 'failed') break;
        assert.ok(Date.now() < deadline, 'the conversion finishes');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const states = seen
        .map((entry) => entry.status)
        .filter((status, index, all) => all[index - 1] !== status);
      assert.deepEqual(states, ['pending', 'processing', 'completed'], JSON.stringify(seen));
      for (let index = 1; index < seen.length; index++) {
        assert.ok(
          seen[index]!.progress >= seen[index - 1]!.progress,
          `progress never falls: ${JSON.stringify(seen)}`,
        );
      }
      assert.ok(
        seen.every(
          (entry) => entry.progress >= 0 && entry.progress <= (entry.status === 'completed' ? 100 : 99),
        ),
        JSON.stringify(seen),
      );
      const done = await read(truck.id);
      assert.deepEqual(
        done.lods.map((lod: ModelJson) => lod.triangle_count),
        truck.lods.map((lod: ModelJson) => lod.triangle_count),
        'the same source converts to the same LODs',
      );
      truck = done;
    });

    void it('fails hostile uploads with a clear error while the API keeps answering', async () => {
      const truckBytes = sample('glb/CesiumMilkTruck.glb');
      const bombWithoutModel = await api.upload('bomb.zip', await makeZipBomb(64 * 1024 * 1024));
      assert.equal(bombWithoutModel.status, 400);
      assert.equal(bombWithoutModel.text, catalogError('Unsupported model format'));

      const hostile: [filename: string, data: Buffer, error: RegExp][] = [
        ['truncated.glb', truckBytes.subarray(0, 200_000), /truncated|corrupt/i],
        ['empty.glb', Buffer.alloc(0), /empty/i],
        ['traversal.zip', makeTraversalZip(), /outside the archive/],
        ['bomb.zip', await makeZipBomb(64 * 1024 * 1024, 'bomb.obj'), /zip bomb/],
        // A .gltf zipped without the .bin and texture it points at (alone, it is refused at upload).
        [
          'BoxTextured.zip',
          makeZip([{ name: 'BoxTextured.gltf', data: sample('gltf/BoxTextured/BoxTextured.gltf') }]),
          /not uploaded with it: "BoxTextured0\.bin", "CesiumLogoFlat\.png"/,
        ],
      ];
      const ids: string[] = [];
      for (const [filename, data] of hostile) ids.push((await api.create(filename, data)).id);

      // The conversions run off the API's event loop: it answers promptly meanwhile.
      for (let poll = 0; poll < 5; poll++) {
        const started = Date.now();
        const list = await api.call('GET', '?limit=100');
        const health = await testApp.app.inject({ method: 'GET', url: '/health' });
        assert.equal(list.status, 200);
        assert.equal(health.statusCode, 200);
        assert.ok(Date.now() - started < 5_000, 'answered within five seconds, even on a loaded machine');
      }

      for (const [index, [filename, , error]] of hostile.entries()) {
        const model = await waitForStatus(
          testApp.app,
          ids[index]!,
          ['completed', 'failed'],
          CONVERSION_TIMEOUT_MS,
        );
        assert.equal(model.status, 'failed', `${filename} failed`);
        assert.match(model.error, error, `${filename}: ${model.error}`);
        assert.equal(model.model_url, null);
        assert.deepEqual(model.lods, []);
        const url = await api.call('GET', `/${model.id}/url`);
        assert.equal(url.text, catalogError(NOT_READY));
        const regenerate = await api.call('POST', `/${model.id}/regenerate-thumbnail`);
        assert.equal(regenerate.text, catalogError('Model not ready for thumbnail generation'));
      }
      const filtered = await api.call('GET', '?status=failed');
      assert.deepEqual(filtered.json.data.map((model: ModelJson) => model.id).sort(), [...ids].sort());
      const completed = await api.call('GET', '?status=completed');
      assert.deepEqual(
        completed.json.data.map((model: ModelJson) => model.id).sort(),
        [truck.id, box.id].sort(),
      );
    });

    void it('reprocesses a failed model back to pending, and it fails again with the same error', async () => {
      const failed = (await api.call('GET', '?status=failed&search=empty.glb')).json.data[0] as ModelJson;
      assert.equal(failed.original_filename, 'empty.glb');
      const response = await api.call('POST', `/${failed.id}/reprocess`);
      assert.equal(response.status, 200, response.text);
      assert.equal(response.json.data.status, 'pending');
      assert.equal(response.json.data.error, null);
      const done = await waitForStatus(
        testApp.app,
        failed.id,
        ['completed', 'failed'],
        CONVERSION_TIMEOUT_MS,
      );
      assert.equal(done.status, 'failed');
      assert.equal(done.error, failed.error);
    });
  });
}
