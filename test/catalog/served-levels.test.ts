import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { catalogApi, pathOf, sample } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { assertLadder, glbJson } from '../helpers/ladder-checks.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus } from '../helpers/wait-for-status.ts';
import { MODELS, quietLogger, readGlb } from '../pipeline/documents.ts';

/** The milk truck: 2,856 triangles and one 2048² PNG used by two materials. */
const TRUCK = 'glb/CesiumMilkTruck.glb';

for (const dialect of testDialects()) {
  void describe(`served levels with the default settings (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    before(async () => {
      testApp = await createTestApp(dialect);
      api = catalogApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    const fetchBytes = async (url: string): Promise<Uint8Array> => {
      const response = await testApp.app.inject({ method: 'GET', url: pathOf(url), headers: testApp.auth });
      assert.equal(response.statusCode, 200, `${url}: ${response.body.slice(0, 200)}`);
      return new Uint8Array(response.rawPayload);
    };

    void it('serves every level meshopt-compressed with WebP textures, renders a thumbnail and exports plain', async () => {
      assert.equal(testApp.config.glbCompression, 'meshopt');
      assert.equal(testApp.config.lodTextures, 'webp');
      const model = await api.create('truck.glb', sample(TRUCK));
      const done = await waitForStatus(testApp.app, model.id, ['completed', 'failed'], 120_000);
      assert.equal(done.status, 'completed', done.error);

      const lods: Uint8Array[] = [];
      for (const level of [0, 1, 2]) {
        const answer = await api.call('GET', `/${model.id}/lod/${level}`);
        assert.equal(answer.status, 200, answer.text);
        lods.push(await fetchBytes(answer.json.data.url as string));
      }
      // Which levels stand in with the level before them (`reduced: false`) the list of levels says.
      const listed = await api.call('GET', `/${model.id}/lod`);
      const reduced = (listed.json.data as { reduced: boolean | null }[]).map((lod) => lod.reduced);
      const file = path.join(MODELS, TRUCK);
      const plain = await convertModel({
        modelId: model.id,
        source: { file, dir: path.dirname(file), format: 'glb' },
        logger: quietLogger,
      });
      await assertLadder(lods, plain.lods[0].glb, [{ width: 2048, height: 2048 }], reduced);

      // The thumbnail is rendered from a compressed level while converting.
      assert.match(done.thumbnail_url as string, /\.png/);
      const png = await fetchBytes(done.thumbnail_url as string);
      assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], 'the thumbnail is a PNG');

      // An export reads the compressed LOD 1 and writes a plain GLB with a PNG texture.
      const query = `/${model.id}/export?format=glb&lod=1`;
      let exported: Uint8Array | undefined;
      for (const deadline = Date.now() + 60_000; !exported && Date.now() < deadline;) {
        const answer = await testApp.app.inject({
          method: 'GET',
          url: `/api/models${query}`,
          headers: testApp.auth,
        });
        if (answer.statusCode === 200) exported = new Uint8Array(answer.rawPayload);
        else {
          assert.equal(answer.statusCode, 202, answer.body);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      assert.ok(exported, 'the export finishes');
      const used = glbJson(exported).extensionsUsed ?? [];
      for (const name of ['EXT_meshopt_compression', 'KHR_mesh_quantization', 'EXT_texture_webp']) {
        assert.ok(!used.includes(name), `the export leaves out ${name}`);
      }
      const textures = (await readGlb(exported)).getRoot().listTextures();
      assert.deepEqual(
        textures.map((texture) => texture.getMimeType()),
        ['image/png'],
      );
    });
  });
}
