import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import type { MaterialOverride } from '../../src/render/render-thumbnail.ts';
import { GLTF_SAMPLES, readSampleDocument, readSampleGlb, toGlb, toMeshoptGlb } from './fixtures.ts';
import { decodeRgba, iou, silhouette } from './silhouette.ts';

void describe('renderThumbnail on the glTF samples', () => {
  for (const sample of GLTF_SAMPLES) {
    void it(`${sample}: a 512×512 PNG with a sizeable, varied picture`, async () => {
      const png = await renderThumbnail(await readSampleGlb(sample));
      const meta = await sharp(png).metadata();
      assert.equal(meta.format, 'png');
      assert.deepEqual([meta.width, meta.height], [512, 512]);
      const { data } = await decodeRgba(png);
      const mask = silhouette(data);
      const covered = mask.reduce((n, v) => n + v, 0) / mask.length;
      assert.ok(covered > 0.15 && covered < 0.9, `covers ${(covered * 100).toFixed(1)} % of the image`);
      const colours = new Set<number>();
      for (let i = 0; i < mask.length; i++) {
        if (mask[i]) colours.add((data[i * 4] << 16) | (data[i * 4 + 1] << 8) | data[i * 4 + 2]);
      }
      assert.ok(colours.size > 50, `${colours.size} distinct colours`);
    });
  }
});

void describe('bound materials', () => {
  void it('recolour their part of CesiumMilkTruck and nothing else', async () => {
    const document = await readSampleDocument('glb/CesiumMilkTruck.glb');
    const meshNodes = document
      .getRoot()
      .listNodes()
      .filter((node) => node.getMesh());
    assert.equal(meshNodes.length, 3, 'body and two wheel nodes');
    meshNodes.forEach((node, i) => node.setExtras({ ...node.getExtras(), group_id: `truck:${i}` }));
    const glb = await toGlb(document);
    const render = async (overrides: [string, MaterialOverride][]) =>
      (await decodeRgba(await renderThumbnail(glb, { materialOverrides: new Map(overrides) }))).data;

    // The body's own pixels: hide the wheels with fully transparent bindings.
    const body = silhouette(
      await render([
        ['truck:1', { color: [1, 1, 1], alpha: 0 }],
        ['truck:2', { color: [1, 1, 1], alpha: 0 }],
      ]),
    );
    const plain = await render([]);
    const red = await render([['truck:0', { color: [0.9, 0.1, 0.1], alpha: 1 }]]);

    const mean = (image: Uint8Array, inside: boolean): number[] => {
      const sum = [0, 0, 0];
      let n = 0;
      for (let i = 0; i < body.length; i++) {
        if (Boolean(body[i]) !== inside || image[i * 4 + 3] < 128) continue;
        for (let c = 0; c < 3; c++) sum[c] += image[i * 4 + c];
        n++;
      }
      assert.ok(n > 1000, `${n} pixels`);
      return sum.map((s) => s / n);
    };
    const redness = ([r, g, b]: number[]) => r - (g + b) / 2;
    assert.ok(redness(mean(plain, true)) < 30, `plain body ${mean(plain, true).map(Math.round).join(',')}`);
    assert.ok(redness(mean(red, true)) > 100, `bound body ${mean(red, true).map(Math.round).join(',')}`);
    const outsidePlain = mean(plain, false);
    const outsideRed = mean(red, false);
    for (let c = 0; c < 3; c++) assert.ok(Math.abs(outsidePlain[c] - outsideRed[c]) < 3, 'wheels unchanged');
  });
});

void describe('compressed LODs', () => {
  void it('draws a meshopt-compressed, quantized GLB like the original', async () => {
    const sample = 'glb/CesiumMilkTruck.glb';
    const compressed = await toMeshoptGlb(await readSampleDocument(sample));
    const json = new TextDecoder().decode(
      compressed.subarray(
        20,
        20 + new DataView(compressed.buffer, compressed.byteOffset).getUint32(12, true),
      ),
    );
    assert.match(json, /EXT_meshopt_compression/);
    assert.match(json, /KHR_mesh_quantization/);
    const original = (await decodeRgba(await renderThumbnail(await readSampleGlb(sample)))).data;
    const decoded = (await decodeRgba(await renderThumbnail(compressed))).data;
    assert.ok(iou(silhouette(original), silhouette(decoded)) > 0.98);
  });
});
