// Every sample model through the whole pipeline: valid outputs, and LODs that keep the model's surface and silhouette.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { convertedSample } from '../helpers/converted-samples.ts';
import { MAKE_LODS_DEFAULTS } from '../../src/pipeline/lods/make-lods.ts';
import { MODEL_FORMATS } from '../../src/pipeline/types.ts';
import { renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import { decodeRgba, iou, silhouette } from '../render/silhouette.ts';
import { MODELS, readGlb, validationErrors } from './documents.ts';
import { surfaceAreas } from './surface-area.ts';

/** Every model file under the samples folder, relative to it. */
function sampleModels(dir = MODELS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const absolute = path.join(dir, entry.name);
    if (entry.isDirectory()) return sampleModels(absolute);
    const format = path.extname(entry.name).slice(1).toLowerCase();
    return (MODEL_FORMATS as readonly string[]).includes(format) ? [path.relative(MODELS, absolute)] : [];
  });
}

/** The six axis views: front, right, back, left, top, bottom. */
const AXIS_VIEWS = [
  { azimuth: 0, elevation: 0 },
  { azimuth: 90, elevation: 0 },
  { azimuth: 180, elevation: 0 },
  { azimuth: 270, elevation: 0 },
  { azimuth: 0, elevation: 90 },
  { azimuth: 0, elevation: -90 },
];

/** Declared extensions that nothing in the file refers to. */
function unusedExtensions(glb: Uint8Array): string[] {
  const length = new DataView(glb.buffer, glb.byteOffset).getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + length))) as Record<string, unknown>;
  const { extensionsUsed, extensionsRequired, ...rest } = json as {
    extensionsUsed?: string[];
    extensionsRequired?: string[];
  };
  void extensionsRequired;
  const body = JSON.stringify(rest);
  return (extensionsUsed ?? []).filter((name) => !body.includes(`"${name}"`));
}

/** Worst silhouette IoU of `lod` against `reference` over the axis views, both seen by the reference's camera. */
async function worstSilhouetteIou(reference: Uint8Array, lod: Uint8Array): Promise<number> {
  let worst = 1;
  for (const view of AXIS_VIEWS) {
    const options = { width: 128, height: 128, supersample: 1, view };
    const first = await renderThumbnailDetailed(reference, options);
    const second = await renderThumbnailDetailed(lod, { ...options, camera: first.camera });
    const score = iou(
      silhouette((await decodeRgba(first.png)).data),
      silhouette((await decodeRgba(second.png)).data),
    );
    worst = Math.min(worst, score);
  }
  return worst;
}

const models = sampleModels();

void test('the samples folder holds models of many formats', () => {
  assert.ok(models.length >= 20, `${models.length} models`);
});

for (const model of models) {
  void test(`${model}: valid LODs that keep its surface, its parts and its silhouette`, async () => {
    const result = await convertedSample(model);
    assert.deepEqual(
      result.lods.map((lod) => lod.level),
      [0, 1, 2],
    );
    for (const lod of result.lods) {
      assert.deepEqual(await validationErrors(lod.glb), [], `LOD ${lod.level}`);
      assert.deepEqual(unusedExtensions(lod.glb), [], `LOD ${lod.level} declares extensions it does not use`);
      const bound = lod.level === 0 ? 0 : MAKE_LODS_DEFAULTS.maxError[lod.level - 1];
      assert.ok(lod.error >= 0 && lod.error <= bound + 1e-9, `LOD ${lod.level} error ${lod.error}`);
    }
    assert.ok(result.lods[1].triangle_count <= result.lods[0].triangle_count);
    assert.ok(result.lods[2].triangle_count <= result.lods[1].triangle_count);

    const [area0, area1, area2] = await Promise.all(
      result.lods.map(async (lod) => surfaceAreas(await readGlb(lod.glb))),
    );
    if (area0.total > 0) {
      assert.ok(area1.total >= area0.total * 0.97, `LOD 1 keeps ${area1.total / area0.total} of the area`);
      assert.ok(area2.total >= area0.total * 0.9, `LOD 2 keeps ${area2.total / area0.total} of the area`);
      for (const [part, area] of area0.parts) {
        if (area < area0.total * 0.01) continue;
        const kept = (area2.parts.get(part) ?? 0) / area;
        assert.ok(kept >= 0.8, `part ${part} keeps ${kept} of its area in LOD 2`);
      }
    }
    const score = await worstSilhouetteIou(result.lods[0].glb, result.lods[2].glb);
    assert.ok(score >= 0.95, `silhouette IoU of LOD 2 against LOD 0: ${score}`);
  });
}
