// The served ladder in headless Chromium against a real server with its default settings: the barrel (three
// 2048² PNGs, base colour factor white) converts to meshopt-compressed levels with WebP textures, and the viewer
// draws LOD 0 and LOD 2 with the wood texture on (a barrel without its texture would be drawn grey).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ModelRecord } from './support/catalog-client.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { decodePng, differs, pixelAt, type Pixels } from './support/pixels.ts';
import type { RunningServer } from './support/server-process.ts';
import {
  CANVAS_EDGE,
  openViewerSession,
  VIEW_BACKGROUND,
  viewShot,
  type ViewerSession,
} from './support/viewer-session.ts';
import { glbJson } from '../helpers/ladder-checks.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';

const TOKEN = 'e2e-ladder-token-0123456789';

let session: ViewerSession;
let server: RunningServer;
let page: Page;
let client: ViewerSession['client'];
let model: ModelRecord;

/** Of the pixels the model covers, the share that is clearly warm (red above blue, saturated): wood, not grey. */
function woodShare(pixels: Pixels): { drawn: number; wood: number } {
  let drawn = 0;
  let wood = 0;
  for (let y = CANVAS_EDGE; y < pixels.height - CANVAS_EDGE; y += 1) {
    for (let x = CANVAS_EDGE; x < pixels.width - CANVAS_EDGE; x += 1) {
      const [r, g, b] = pixelAt(pixels, x, y);
      if (!differs([r, g, b], VIEW_BACKGROUND)) continue;
      drawn += 1;
      const max = Math.max(r, g, b);
      if (r > b + 20 && r >= g && max > 40 && (max - Math.min(r, g, b)) / max > 0.25) wood += 1;
    }
  }
  return { drawn, wood: drawn === 0 ? 0 : wood / drawn };
}

void describe(
  'compressed, WebP-textured levels in the viewer',
  { timeout: 6 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      session = await openViewerSession('ladder', TOKEN, { consoleErrors: true });
      ({ server, page, client } = session);
      const uploaded = await client.upload(join(SAMPLE_MODELS, 'glb/barrel.glb'));
      model = await client.waitCompleted(uploaded.id);
    });

    after(() => session?.close());

    void test('the viewer draws the barrel textured from meshopt-compressed WebP levels', async () => {
      for (const lod of model.lods) {
        const glb = new Uint8Array(await (await fetch(lod.url)).arrayBuffer());
        const required = glbJson(glb).extensionsRequired ?? [];
        assert.ok(required.includes('EXT_meshopt_compression'), `LOD ${lod.level} is meshopt-compressed`);
        assert.ok(required.includes('EXT_texture_webp'), `LOD ${lod.level} has WebP textures`);
      }

      const fetched: string[] = [];
      page.on('response', (response) => {
        // Level URLs carry a signature in their query.
        if (new URL(response.url()).pathname.endsWith('.glb')) fetched.push(response.url());
      });
      await page.goto(`${server.baseUrl}/#/models/${model.id}`);
      const lod0 = woodShare(await decodePng(await viewShot(page, 'barrel-lod0')));
      assert.ok(lod0.drawn > 5_000, `the barrel is drawn (${lod0.drawn} pixels)`);
      assert.ok(
        lod0.wood > 0.5,
        `LOD 0 is drawn in its wood texture (${(lod0.wood * 100).toFixed(1)} % warm)`,
      );

      await page.getByRole('radio', { name: /^LOD 2/ }).check();
      await page.waitForFunction(
        () => /^LOD 2: /.test(document.querySelector('.triangle-count')?.textContent ?? ''),
        undefined,
        { timeout: 120_000 },
      );
      const lod2 = woodShare(await decodePng(await viewShot(page, 'barrel-lod2')));
      assert.ok(
        lod2.wood > 0.5,
        `LOD 2 is drawn in its wood texture (${(lod2.wood * 100).toFixed(1)} % warm)`,
      );
      // The page opens on LOD 2 and refines to LOD 0; choosing LOD 2 again may come from the browser's cache.
      assert.equal(new Set(fetched).size, 2, `LOD 0 and LOD 2 were fetched: ${fetched.join(', ')}`);
      assert.deepEqual(session.pageErrors, []);
    });
  },
);
