import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import { skipWithoutChromium } from '../e2e/support/chromium.ts';
import { GLTF_SAMPLES, readSampleGlb } from './fixtures.ts';
import { decodeRgba, iou, shiftMask, silhouette } from './silhouette.ts';
import { launchReference } from './three-reference.ts';
import type { ReferenceRenderer } from './three-reference.ts';

const SIZE = 512;

// Needs Debian's chromium (`apt-get install chromium`); without it these tests are skipped outside CI, fail in CI.
void describe('silhouette against three.js in headless Chromium', { skip: skipWithoutChromium }, () => {
  let reference: ReferenceRenderer;
  before(async () => {
    reference = await launchReference();
  });
  after(async () => {
    await reference?.close();
  });

  for (const sample of GLTF_SAMPLES) {
    void it(`${sample}: IoU ≥ 0.95, and clearly lower when misaligned`, async () => {
      const glb = await readSampleGlb(sample);
      const ours = await renderThumbnailDetailed(glb);
      const mask = silhouette((await decodeRgba(ours.png)).data);
      const theirs = silhouette(await reference.render(glb, ours.camera, SIZE, SIZE));
      const theirCoverage = theirs.reduce((n, v) => n + v, 0) / theirs.length;
      assert.ok(theirCoverage > 0.1, `reference covers only ${(theirCoverage * 100).toFixed(1)} %`);

      const score = iou(mask, theirs);
      assert.ok(score >= 0.95, `IoU ${score.toFixed(4)}`);
      // The measure must be able to fail: the same silhouette 24 px to the side scores far lower.
      const shifted = iou(shiftMask(mask, SIZE, 24), theirs);
      assert.ok(
        shifted < 0.9 && shifted < score - 0.05,
        `shifted IoU ${shifted.toFixed(4)} vs ${score.toFixed(4)}`,
      );
    });
  }

  void it('CesiumMilkTruck from another view does not match the three-quarter reference', async () => {
    const glb = await readSampleGlb('glb/CesiumMilkTruck.glb');
    const threeQuarter = await renderThumbnailDetailed(glb);
    const theirs = silhouette(await reference.render(glb, threeQuarter.camera, SIZE, SIZE));
    const side = await renderThumbnailDetailed(glb, { view: { azimuth: 90, elevation: 0 } });
    const score = iou(silhouette((await decodeRgba(side.png)).data), theirs);
    assert.ok(score < 0.8, `side view IoU ${score.toFixed(4)}`);
  });
});
