import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { srgbToLinear } from '../../src/writers/bound-material.ts';
import { JobName } from '../../src/jobs/job-types.ts';
import { catalogApi, catalogError, pathOf, type CatalogAnswer } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { twoPartGlb } from '../catalog/tiny-model.ts';
import { readGlb, validationErrors } from '../pipeline/documents.ts';

const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

/** The material on the first primitive of the named node. */
async function materialOf(glb: Uint8Array, nodeName: string) {
  const document = await readGlb(glb);
  const node = document
    .getRoot()
    .listNodes()
    .find((candidate) => candidate.getName() === nodeName);
  return node?.getMesh()?.listPrimitives()[0].getMaterial() ?? undefined;
}

/** The base colour of the material on the first primitive of the named node. */
async function baseColourOf(glb: Uint8Array, nodeName: string): Promise<number[] | undefined> {
  return (await materialOf(glb, nodeName))?.getBaseColorFactor();
}

/** The colour of a part the source gave no material: conversion gives it glTF's default (white, two-sided). */
const UNPAINTED = [1, 1, 1, 1];

function assertColour(actual: number[] | undefined, rgb: [number, number, number], alpha = 1): void {
  assert.ok(actual, 'the part has a material');
  const expected = [...rgb.map(srgbToLinear), alpha];
  actual.forEach((value, i) => assert.ok(Math.abs(value - expected[i]) < 1e-4, `${actual} ≈ ${expected}`));
}

for (const dialect of testDialects()) {
  void describe(`model export (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    let modelId: string;
    let sharedGroup: string;
    before(async () => {
      testApp = await createTestApp(dialect);
      testApp.startJobRunner(async () => Buffer.from('not rendered'));
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
      sharedGroup = `export-test-${dialect}-${Date.now()}`;
      const created = await api.create('two.glb', await twoPartGlb(sharedGroup), { name: 'Two parts' });
      modelId = created.id;
      await waitForStatus(testApp.app, modelId, ['completed']);
    });
    after(() => testApp.close());

    const exportCall = (query: string, accept = '*/*') =>
      testApp.app.inject({
        method: 'GET',
        url: `/api/models/${modelId}/export?${query}`,
        headers: { ...testApp.auth, accept },
      });

    /** Asks until the export answers 200; the first answer must be the 202 of a new job when `expectNew`. */
    async function exported(query: string, expectNew: boolean): Promise<Buffer> {
      const first = await exportCall(query);
      if (expectNew) {
        assert.equal(first.statusCode, 202, first.body);
        const body = JSON.parse(first.body);
        assert.equal(body.success, true);
        assert.ok(['queued', 'running'].includes(body.data.status));
        assert.match(body.data.job_id, /^\d+$/);
        assert.equal(body.data.url, null);
        assert.equal(first.headers['retry-after'], '1');
      }
      const deadline = Date.now() + 60_000;
      for (let answer = first; ; answer = await exportCall(query)) {
        if (answer.statusCode === 200) return answer.rawPayload;
        assert.equal(answer.statusCode, 202, answer.body);
        if (Date.now() > deadline) assert.fail(`export ${query} never finished: ${answer.body}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    // Export jobs only: a binding change also queues its models' thumbnail refresh.
    const jobCount = async () =>
      Number(
        (
          await testApp.database.db
            .selectFrom('jobs')
            .where('name', '=', JobName.ExportModel)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    void it('makes a GLB with the bound colour through a job, then serves it from the cache', async () => {
      const red = await materials.create({
        name: 'Red',
        diffuse_r: 200,
        diffuse_g: 20,
        diffuse_b: 20,
        alpha: 128,
      });
      await materials.bind(red.id, [sharedGroup]);
      const glb = await exported('format=glb', true);
      assert.deepEqual(await validationErrors(glb), []);
      assertColour(await baseColourOf(glb, 'Shared'), [200, 20, 20], 128 / 255);
      assert.deepEqual(await baseColourOf(glb, 'Plain'), UNPAINTED, 'an unbound part keeps its own');
      const document = await readGlb(glb);
      assert.equal((await materialOf(glb, 'Shared'))?.getAlphaMode(), 'BLEND');
      assert.deepEqual(
        document
          .getRoot()
          .listNodes()
          .map((node) => [node.getName(), node.getExtras().group_id]),
        [
          ['Shared', sharedGroup],
          ['Plain', `${modelId}:1`],
        ],
      );

      const cached = await exportCall('');
      assert.equal(cached.statusCode, 200, 'glb is the default format');
      assert.equal(cached.headers['content-type'], 'model/gltf-binary');
      assert.equal(cached.headers['content-disposition'], 'attachment; filename="Two parts.glb"');
      assert.deepEqual(cached.rawPayload, glb);
      assert.equal(await jobCount(), 0, 'a cached export queues nothing');

      const json = await exportCall('format=glb&lod=0&materials=bound', 'application/json');
      assert.equal(json.statusCode, 200);
      const state = JSON.parse(json.body).data;
      assert.equal(state.status, 'ready');
      assert.equal(state.size, glb.byteLength);
      assert.equal(state.file_name, 'Two parts.glb');
      assert.equal(state.version, 1, 'made from the version the model serves');
      const served = await testApp.app.inject({ method: 'GET', url: pathOf(state.url) });
      assert.equal(served.statusCode, 200);
      assert.deepEqual(served.rawPayload, glb);
    });

    void it('reflects a binding changed after an export, and an edited material', async () => {
      const before = await exported('format=glb', false);
      const blue = await materials.create({ name: 'Blue', diffuse_r: 10, diffuse_g: 30, diffuse_b: 250 });
      await materials.bind(blue.id, [sharedGroup]);
      const after = await exported('format=glb', true);
      assert.notDeepEqual(after, before);
      assertColour(await baseColourOf(after, 'Shared'), [10, 30, 250]);

      const edited = await materials.call('PUT', `/materials/${blue.id}`, { diffuse_g: 200, metallic: 0.7 });
      assert.equal(edited.status, 200);
      const repainted = await exported('format=glb', true);
      assertColour(await baseColourOf(repainted, 'Shared'), [10, 200, 250]);
      const material = (await materialOf(repainted, 'Shared'))!;
      assert.equal(material.getMetallicFactor(), 0.7);

      const unbound = await materials.call('DELETE', `/materials/${blue.id}/bindings`, {
        group_ids: [sharedGroup],
      });
      assert.equal(unbound.status, 200);
      const plain = await exported('format=glb', true);
      assert.deepEqual(await baseColourOf(plain, 'Shared'), UNPAINTED);
      // The replaced files are gone: one GLB remains for this export. The job removes the file it replaced right
      // after recording the new one, which answers 200 already, so the folder is read until then.
      const folder = path.join(testApp.config.dataDir, 'files', 'models', modelId, 'exports');
      const glbs = () =>
        fs.readdirSync(folder, { recursive: true }).filter((name) => String(name).endsWith('.glb'));
      for (const deadline = Date.now() + 10_000; glbs().length > 1 && Date.now() < deadline;)
        await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(glbs().length, 1);
    });

    void it('keeps the source materials with materials=source', async () => {
      const green = await materials.create({ name: 'Green', diffuse_r: 0, diffuse_g: 255, diffuse_b: 0 });
      await materials.bind(green.id, [sharedGroup]);
      const source = await exported('format=glb&materials=source', true);
      assert.deepEqual(await baseColourOf(source, 'Shared'), UNPAINTED);
    });

    /** The corners of an STL's first triangle, x y z each. */
    const firstTriangle = (stl: Buffer) =>
      [0, 1, 2].map((corner) => [0, 1, 2].map((axis) => stl.readFloatLE(84 + 12 + corner * 12 + axis * 4)));

    void it('writes binary STL with every triangle, in millimetres with +Z up', async () => {
      const stl = await exported('format=stl&lod=0', true);
      assert.equal(stl.readUInt32LE(80), 2);
      assert.equal(stl.byteLength, 84 + 2 * 50);
      // The `Shared` triangle: (0,0,0), (1,0,0), (0,1,0) metres with +Y up.
      assert.deepEqual(firstTriangle(stl), [
        [0, 0, 0],
        [1000, 0, 0],
        [0, 0, 1000],
      ]);
      const cached = await exportCall('format=stl');
      assert.equal(cached.headers['content-type'], 'model/stl');
      const json = await exportCall('format=stl', 'application/json');
      assert.equal(JSON.parse(json.body).data.unit, 'millimeter');
    });

    void it('writes STL and 3MF in the unit asked for, each unit its own cached file', async () => {
      const inches = await exported('format=stl&unit=inch', true);
      const [, x] = firstTriangle(inches);
      assert.ok(Math.abs(x[0] - 1 / 0.0254) < 1e-3, `1 m is ${x[0]} inches`);
      const json = await exportCall('format=stl&unit=inch', 'application/json');
      assert.equal(JSON.parse(json.body).data.unit, 'inch');
      const millimetres = await exported('format=stl&unit=millimeter', false);
      assert.equal(firstTriangle(millimetres)[1][0], 1000, 'the millimetre file is still the cached one');

      const threeMf = await exported('format=3mf&unit=centimeter', true);
      assert.equal(threeMf.subarray(0, 4).toString('latin1'), 'PK\x03\x04');
      const glb = await exportCall('format=glb', 'application/json');
      assert.equal(JSON.parse(glb.body).data.unit, 'meter', 'other formats are in metres');
    });

    void it('writes OBJ (zip), 3MF and USDZ through the same job, each with its media type', async () => {
      for (const [format, type] of [
        ['obj', 'application/zip'],
        ['3mf', 'model/3mf'],
        ['usdz', 'model/vnd.usdz+zip'],
      ] as const) {
        const bytes = await exported(`format=${format}&lod=1`, true);
        assert.equal(bytes.subarray(0, 4).toString('latin1'), 'PK\x03\x04', `${format} is a zip package`);
        const cached = await exportCall(`format=${format}&lod=1`);
        assert.equal(cached.headers['content-type'], type);
      }
    });

    void it('keeps a cached export through a new thumbnail, and makes it again after a rename', async () => {
      await exported('format=glb&lod=2&materials=source', true);
      const png = await sharp({
        create: { width: 4, height: 4, channels: 3, background: { r: 200, g: 10, b: 10 } },
      })
        .png()
        .toBuffer();
      assert.equal((await api.thumbnail(modelId, 'cover.png', png)).status, 200);
      const cached = await exportCall('format=glb&lod=2&materials=source');
      assert.equal(cached.statusCode, 200, 'a thumbnail changes nothing an export holds');
      const renamed = await api.call('PATCH', `/${modelId}`, { name: 'Two parts renamed' });
      assert.equal(renamed.status, 200, renamed.text);
      await exported('format=glb&lod=2&materials=source', true);
      const again = await exportCall('format=glb&lod=2&materials=source', 'application/json');
      assert.match(JSON.parse(again.body).data.file_name, /^Two parts renamed/);
    });

    void it('refuses bad queries and unknown or unconverted models in the catalog envelope', async () => {
      const cases: [string, number, string][] = [
        ['format=fbx', 400, 'format must be one of glb, usdz, obj, stl, 3mf'],
        ['format=glb&lod=3', 400, 'lod must be 0, 1 or 2'],
        ['format=glb&materials=mine', 400, 'materials must be one of bound, source, variants'],
        [
          'format=stl&unit=parsec',
          400,
          'unit must be one of millimeter, micron, centimeter, inch, foot, meter',
        ],
        ['format=glb&unit=inch', 400, 'unit applies to stl and 3mf only; glb is always in metres'],
        ['unit=millimeter', 400, 'unit applies to stl and 3mf only; glb is always in metres'],
      ];
      for (const [query, status, error] of cases) {
        const answer = await exportCall(query);
        assert.equal(answer.statusCode, status, query);
        assert.equal(answer.body, catalogError(error), query);
      }
      const unknown = await api.call('GET', `/${UNKNOWN_ID}/export?format=glb`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.text, catalogError('Model not ready or not found'));
      const badId = await api.call('GET', `/nope/export?format=glb`);
      assert.equal(badId.text, catalogError('Invalid model id'));
      const anonymous = await testApp.app.inject({
        method: 'GET',
        url: `/api/models/${modelId}/export?format=glb`,
      });
      assert.equal(anonymous.statusCode, 401);
    });

    void it('removes the exports with the model', async () => {
      const answer: CatalogAnswer = await api.call('DELETE', `/${modelId}`);
      assert.equal(answer.status, 200);
      const rows = await testApp.database.db.selectFrom('model_exports').selectAll().execute();
      assert.deepEqual(rows, []);
      assert.equal(fs.existsSync(path.join(testApp.config.dataDir, 'files', 'models', modelId)), false);
    });
  });
}
