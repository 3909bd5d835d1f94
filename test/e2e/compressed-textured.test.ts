// The served ladder in headless Chromium against a real server with its default settings: the barrel (three
// 2048² PNGs, base colour factor white) converts to meshopt-compressed levels with WebP textures, and the viewer
// draws LOD 0 and LOD 2 with the wood texture on (a barrel without its texture would be drawn grey).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { catalogClient, type ModelRecord } from './support/catalog-client.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { decodePng, differs, hexToRgb, pixelAt, type Pixels } from './support/pixels.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { glbJson } from '../helpers/ladder-checks.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'e2e-ladder-token-0123456789';
/** Must match VIEW_BACKGROUND in web/src/viewer/model-viewport.ts. */
const BACKGROUND = hexToRgb('#262b36');
/** Where the screenshots go when VITRINE_E2E_SHOTS names a folder, to look at. */
const SHOTS = process.env.VITRINE_E2E_SHOTS;
/** Pixels along the canvas edge left out: its rounded corners show the page behind it. */
const EDGE = 16;

let dataDir: string;
let server: RunningServer;
let browser: Browser | undefined;
let page: Page;
let model: ModelRecord;
const pageErrors: string[] = [];

/** Of the pixels the model covers, the share that is clearly warm (red above blue, saturated): wood, not grey. */
function woodShare(pixels: Pixels): { drawn: number; wood: number } {
  let drawn = 0;
  let wood = 0;
  for (let y = EDGE; y < pixels.height - EDGE; y += 1) {
    for (let x = EDGE; x < pixels.width - EDGE; x += 1) {
      const [r, g, b] = pixelAt(pixels, x, y);
      if (!differs([r, g, b], BACKGROUND)) continue;
      drawn += 1;
      const max = Math.max(r, g, b);
      if (r > b + 20 && r >= g && max > 40 && (max - Math.min(r, g, b)) / max > 0.25) wood += 1;
    }
  }
  return { drawn, wood: drawn === 0 ? 0 : wood / drawn };
}

/** A screenshot of the view once the level is loaded and drawn. */
async function viewShot(name: string): Promise<Pixels> {
  const canvas = page.locator('.viewer[data-state="ready"] canvas');
  await canvas.waitFor({ timeout: 120_000 });
  await page.waitForTimeout(500);
  const box = await canvas.boundingBox({ timeout: 120_000 });
  assert.ok(box, 'the canvas is laid out');
  const png = await page.screenshot({ clip: box, timeout: 120_000 });
  if (SHOTS) await writeFile(join(SHOTS, `${name}.png`), png);
  return decodePng(png);
}

void describe(
  'compressed, WebP-textured levels in the viewer',
  { timeout: 6 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      ensureViewerBuilt(REPO);
      dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-ladder-'));
      server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
      const client = catalogClient(server.baseUrl, TOKEN);
      const uploaded = await client.upload(join(SAMPLE_MODELS, 'glb/barrel.glb'));
      model = await client.waitCompleted(uploaded.id);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
      page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

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
      const lod0 = woodShare(await viewShot('barrel-lod0'));
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
      const lod2 = woodShare(await viewShot('barrel-lod2'));
      assert.ok(
        lod2.wood > 0.5,
        `LOD 2 is drawn in its wood texture (${(lod2.wood * 100).toFixed(1)} % warm)`,
      );
      assert.equal(fetched.length, 2, `LOD 0 and LOD 2 were fetched: ${fetched.join(', ')}`);
      assert.deepEqual(pageErrors, []);
    });
  },
);
