// Every sample model's LOD ladder: valid levels that keep their shading, look like LOD 0, and get strictly smaller
// (or say they could not).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { convertedSample } from '../helpers/converted-samples.ts';
import { LEVEL_BYTE_SHARES } from '../../src/pipeline/lods/keep-smaller-levels.ts';
import { renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import { decodeRgba } from '../render/silhouette.ts';
import { readGlb, validationErrors } from './documents.ts';
import { AXIS_VIEWS, sampleModels } from './sample-list.ts';
import { normalDeviationShare } from './normal-deviation.ts';

/** Share of the pixels either render covers whose colour differs by more than 10 % (of 255) in some channel. */
function differingShare(first: Uint8Array, second: Uint8Array): number {
  let covered = 0;
  let differing = 0;
  for (let i = 0; i < first.length; i += 4) {
    if (first[i + 3] < 128 && second[i + 3] < 128) continue;
    covered++;
    const worst = Math.max(
      Math.abs(first[i] - second[i]),
      Math.abs(first[i + 1] - second[i + 1]),
      Math.abs(first[i + 2] - second[i + 2]),
      Math.abs(first[i + 3] - second[i + 3]),
    );
    if (worst > 25.5) differing++;
  }
  return covered === 0 ? 0 : differing / covered;
}

/** Worst share of differing pixels of `lod` against `reference` over the six axis views, same camera for both. */
async function worstRenderDifference(reference: Uint8Array, lod: Uint8Array): Promise<number> {
  let worst = 0;
  for (const view of AXIS_VIEWS) {
    const options = { width: 96, height: 96, supersample: 1, view };
    const first = await renderThumbnailDetailed(reference, options);
    const second = await renderThumbnailDetailed(lod, { ...options, camera: first.camera });
    const share = differingShare((await decodeRgba(first.png)).data, (await decodeRgba(second.png)).data);
    worst = Math.max(worst, share);
  }
  return worst;
}

for (const model of sampleModels()) {
  void test(`${model}: every level valid, shaded as LOD 0, strictly smaller or marked not reduced`, async () => {
    const { lods } = await convertedSample(model);
    assert.deepEqual(
      lods.map((lod) => lod.level),
      [0, 1, 2],
    );
    assert.equal(lods[0].reduced, false);

    const shading: number[] = [];
    for (const lod of lods) {
      if (lod.level > 0 && !lod.reduced) {
        // No copy: the level before it stands in, bytes and all.
        const previous = lods[lod.level - 1];
        assert.equal(lod.glb, previous.glb, `LOD ${lod.level} is the level before it`);
        assert.equal(lod.triangle_count, previous.triangle_count);
        shading.push(shading[lod.level - 1]);
        continue;
      }
      assert.deepEqual(await validationErrors(lod.glb), [], `LOD ${lod.level}`);
      shading.push(normalDeviationShare(await readGlb(lod.glb)));
    }
    for (const level of [1, 2]) {
      assert.ok(
        shading[level] <= shading[0] + 0.02,
        `LOD ${level} shades ${(shading[level] * 100).toFixed(1)} % of its area wrongly, LOD 0 ` +
          `${(shading[0] * 100).toFixed(1)} %`,
      );
    }

    const bytes = lods.map((lod) => lod.glb.byteLength);
    for (const level of [1, 2] as const) {
      if (!lods[level].reduced) continue;
      assert.ok(
        bytes[level] < bytes[level - 1],
        `LOD ${level}: ${bytes[level]} bytes after ${bytes[level - 1]}`,
      );
      assert.ok(
        bytes[level] <= bytes[0] * LEVEL_BYTE_SHARES[level - 1],
        `LOD ${level}: ${bytes[level]} of LOD 0's ${bytes[0]} bytes`,
      );
    }

    if (lods[2].reduced) {
      const difference = await worstRenderDifference(lods[0].glb, lods[2].glb);
      assert.ok(
        difference <= 0.05,
        `${(difference * 100).toFixed(1)} % of LOD 2's pixels differ from LOD 0's`,
      );
    }
  });
}
