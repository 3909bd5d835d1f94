// A tiled model's thumbnail comes from its tileset: regenerated with every level of detail removed from storage,
// it still draws the model, in its bound colours, as its LOD 0 would; a model without a tileset keeps drawing
// from its level.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Document, NodeIO } from '@gltf-transform/core';
import sharp from 'sharp';
import { createModelRepository } from '../../src/catalog/repository.ts';
import { storedLods } from '../../src/catalog/schemas.ts';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import { catalogApi, pathOf } from '../helpers/catalog-api.ts';
import { testDialects } from '../helpers/databases.ts';
import { materialApi } from '../helpers/material-api.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { waitForStatus, type ModelJson } from '../helpers/wait-for-status.ts';
import { torusPrimitive } from '../pipeline/torus.ts';
import { decodeRgba, iou, silhouette } from '../render/silhouette.ts';

const RED = { color: [1, 0, 0] as [number, number, number], alpha: 1 };

/** Two rings of 38,400 triangles side by side, each a part with the given group id: tiled into several tiles. */
async function twoRingsGlb(groupIds: [string, string]): Promise<Uint8Array> {
  const document = new Document();
  const scene = document.createScene('Scene');
  groupIds.forEach((groupId, index) => {
    const primitive = torusPrimitive(document, 160, 120);
    scene.addChild(
      document
        .createNode(`Ring ${index}`)
        .setTranslation([index * 3, 0, 0])
        .setMesh(document.createMesh(`Ring ${index}`).addPrimitive(primitive))
        .setExtras({ group_id: groupId }),
    );
  });
  return new NodeIO().writeBinary(document);
}

/** Share of a PNG's pixels that are clearly red (lit and shaded, so judged against the other channels). */
async function redShare(png: Uint8Array): Promise<number> {
  const { data, width, height } = await decodeRgba(png);
  let red = 0;
  for (let i = 0; i < data.length; i += 4)
    if (data[i + 3] >= 128 && data[i] > 80 && data[i] - data[i + 1] > 50 && data[i] - data[i + 2] > 50) red++;
  return red / (width * height);
}

for (const dialect of testDialects()) {
  void describe(`thumbnails of tiled models (${dialect})`, () => {
    let testApp: TestApp;
    let api: ReturnType<typeof catalogApi>;
    let materials: ReturnType<typeof materialApi>;
    before(async () => {
      testApp = await createTestApp(dialect, { TILES_ABOVE_TRIANGLES: '1000' });
      api = catalogApi(testApp.app, testApp.auth);
      materials = materialApi(testApp.app, testApp.auth);
      testApp.startJobRunner();
    });
    after(() => testApp.close());

    const fileOf = (key: string) => path.join(testApp.config.dataDir, 'files', key);
    const thumbnailEvents = async (modelId: string): Promise<number> =>
      (
        await testApp.database.db
          .selectFrom('events')
          .select('id')
          .where('type', '=', 'thumbnail.updated')
          .where('model_id', '=', modelId)
          .execute()
      ).length;
    /** Asks for a new thumbnail and returns it once rendered. */
    const regenerate = async (modelId: string): Promise<Buffer> => {
      const before = await thumbnailEvents(modelId);
      const answer = await api.call('POST', `/${modelId}/regenerate-thumbnail`);
      assert.equal(answer.status, 200, answer.text);
      const since = Date.now();
      while ((await thumbnailEvents(modelId)) === before) {
        assert.ok(Date.now() - since < 60_000, 'no new thumbnail within a minute');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const model = (await api.call('GET', `/${modelId}`)).json.data as ModelJson;
      const png = await testApp.app.inject({ method: 'GET', url: pathOf(model.thumbnail_url) });
      assert.equal(png.statusCode, 200);
      return png.rawPayload;
    };
    /** A model converted from `bytes`, its stored levels' keys, and what its LOD 0 draws as today's thumbnails do. */
    const converted = async (name: string, bytes: Uint8Array, overrides: Map<string, typeof RED>) => {
      const created = await api.create(name, bytes);
      const model = await waitForStatus(testApp.app, created.id, ['completed', 'failed'], 120_000);
      assert.equal(model.status, 'completed', model.error);
      const row = (await createModelRepository(testApp.database).get(model.id))!;
      const lodKeys = [...new Set(storedLods(row).map((lod) => lod.key))];
      const reference = await renderThumbnail(fs.readFileSync(fileOf(lodKeys[0])), {
        materialOverrides: overrides,
      });
      return { model, row, lodKeys, reference };
    };

    void it('draws a tiled model from its tiles, with no level of detail left in storage', async () => {
      const groupIds: [string, string] = [`ring-red-${dialect}`, `ring-plain-${dialect}`];
      const red = await materials.create({ name: 'Ring red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 });
      await materials.bind(red.id, [groupIds[0]]);
      const { model, row, lodKeys, reference } = await converted(
        'rings.glb',
        await twoRingsGlb(groupIds),
        new Map([[groupIds[0], RED]]),
      );
      assert.ok(row.tileset_key, 'the model was tiled');
      const tileset = JSON.parse(fs.readFileSync(fileOf(row.tileset_key), 'utf8')) as {
        root: { children?: unknown[] };
      };
      assert.ok((tileset.root.children?.length ?? 0) > 1, 'the tree has tiles below its root');

      // No level left to read: a render from one would fail and leave the thumbnail as it was.
      for (const key of lodKeys) fs.rmSync(fileOf(key));
      const png = await regenerate(model.id);
      fs.writeFileSync(path.join(testApp.config.dataDir, `tiled-${dialect}.png`), png);

      const drawn = silhouette((await decodeRgba(png)).data);
      const expected = silhouette((await decodeRgba(reference)).data);
      const covered = drawn.reduce((sum, pixel) => sum + pixel, 0) / drawn.length;
      assert.ok(covered > 0.05, `the rings cover ${(covered * 100).toFixed(1)} % of the picture`);
      const overlap = iou(drawn, expected);
      assert.ok(overlap > 0.95, `silhouette IoU with LOD 0's render ${overlap.toFixed(3)}`);
      // The bound colour reached the red ring's triangles through the tiles' feature ids, and only those.
      const [tiledRed, lodRed] = [await redShare(png), await redShare(reference)];
      assert.ok(tiledRed > 0.02, `red share ${tiledRed.toFixed(3)}`);
      assert.ok(
        Math.abs(tiledRed - lodRed) < 0.01,
        `red share ${tiledRed.toFixed(3)} vs ${lodRed.toFixed(3)}`,
      );
      assert.ok(tiledRed < covered * 0.75, 'the plain ring is not red');
      assert.equal((await sharp(png).metadata()).width, 512);
    });

    void it('draws a model without a tileset from its level, as before', async () => {
      const plain = new Document();
      const primitive = torusPrimitive(plain, 12, 8);
      plain
        .createScene()
        .addChild(plain.createNode('Ring').setMesh(plain.createMesh().addPrimitive(primitive)));
      const { model, row, reference } = await converted(
        'small-ring.glb',
        await new NodeIO().writeBinary(plain),
        new Map(),
      );
      assert.equal(row.tileset_key, null);
      const png = await regenerate(model.id);
      const overlap = iou(
        silhouette((await decodeRgba(png)).data),
        silhouette((await decodeRgba(reference)).data),
      );
      assert.ok(overlap > 0.99, `silhouette IoU with its level's render ${overlap.toFixed(3)}`);
    });
  });
}
