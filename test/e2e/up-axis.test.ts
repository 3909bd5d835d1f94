// The details form's up axis in headless Chromium against a real server: a Z-up OBJ lies on its side, is set to
// Z up in the form, is converted again by itself and then stands upright in the view.
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
import { zUpHouseObj } from '../fixtures/z-up-house.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'e2e-up-axis-token-0123456789';
/** Must match VIEW_BACKGROUND in web/src/viewer/model-viewport.ts. */
const BACKGROUND = hexToRgb('#262b36');
/** Where the screenshots go when VITRINE_E2E_SHOTS names a folder, to look at. */
const SHOTS = process.env.VITRINE_E2E_SHOTS;

let dataDir: string;
let server: RunningServer;
let browser: Browser | undefined;
let page: Page;
let model: ModelRecord;
const pageErrors: string[] = [];

/** Pixels along the canvas edge left out: its rounded corners show the page behind it. */
const EDGE = 16;

/** Width and height of the box around everything the view drew that is not background. */
function drawnSize(pixels: Pixels): { width: number; height: number } {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = EDGE; y < pixels.height - EDGE; y += 1) {
    for (let x = EDGE; x < pixels.width - EDGE; x += 1) {
      if (!differs(pixelAt(pixels, x, y), BACKGROUND)) continue;
      [minX, minY, maxX, maxY] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y)];
    }
  }
  assert.ok(maxX >= minX, 'the view drew the model');
  return { width: maxX - minX + 1, height: maxY - minY + 1 };
}

/** The drawn size once the view has loaded its model and drawn a frame or two. */
async function viewedSize(name: string): Promise<{ width: number; height: number }> {
  const canvas = page.locator('.viewer[data-state="ready"] canvas');
  try {
    await canvas.waitFor({ timeout: 120_000 });
  } catch (error) {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-not-ready.png`), fullPage: true });
    throw error;
  }
  await page.waitForTimeout(500);
  // A clip of the page rather than an element screenshot: the latter waits for the canvas to hold still, which
  // a busy machine can stretch past its timeout.
  const box = await canvas.boundingBox({ timeout: 120_000 });
  assert.ok(box, 'the canvas is laid out');
  const png = await page.screenshot({ clip: box, timeout: 120_000 });
  if (SHOTS) await writeFile(join(SHOTS, `${name}.png`), png);
  return drawnSize(await decodePng(png));
}

void describe(
  'up axis in the details form end to end',
  { timeout: 5 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      ensureViewerBuilt(REPO);
      dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-up-axis-'));
      server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
      const client = catalogClient(server.baseUrl, TOKEN);
      const uploaded = await client.upload({
        name: 'house.obj',
        bytes: new TextEncoder().encode(zUpHouseObj()),
      });
      model = await client.waitCompleted(uploaded.id);
      browser = await launchChromium();
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await context.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
      page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    void test('a Z-up OBJ set to Z up in the details form is converted again and stands upright', async () => {
      await page.goto(`${server.baseUrl}/#/models/${model.id}`);
      const lying = await viewedSize('house-lying');
      // Read Y-up, the 14-unit height runs along the depth and the house is wider than tall on screen.
      assert.ok(lying.height < lying.width, `lying house drawn ${lying.width}×${lying.height}`);

      const thumbnail = page.locator('.model-details .thumb img');
      const lyingThumbnail = await thumbnail.getAttribute('src');
      const up = page.getByLabel('Up axis');
      assert.equal(await up.inputValue(), 'y');
      await up.selectOption('z');
      await page.getByLabel('Unit').selectOption('cm');
      await page.getByRole('button', { name: 'Save details' }).click();
      // The page follows the new conversion and opens the model again when it is done.
      await page.locator('.viewer[data-state="ready"]').waitFor({ state: 'detached', timeout: 30_000 });
      const upright = await viewedSize('house-upright');
      assert.ok(upright.height > upright.width, `upright house drawn ${upright.width}×${upright.height}`);
      assert.equal(await page.getByLabel('Up axis').inputValue(), 'z');
      assert.equal(await page.getByLabel('Unit').inputValue(), 'cm');
      // The details show the thumbnail the new conversion rendered.
      assert.notEqual(await thumbnail.getAttribute('src'), lyingThumbnail);
      if (SHOTS)
        await page
          .locator('.model-details')
          .screenshot({ path: join(SHOTS, 'details.png'), timeout: 120_000 });

      const record = (
        await (await catalogClient(server.baseUrl, TOKEN).call(`/api/models/${model.id}`)).json()
      ).data as { up: string; unit: string; bounds: { min: number[]; max: number[] } };
      assert.equal(record.up, 'z');
      const size = record.bounds.max.map((max, axis) => max - record.bounds.min[axis]);
      assert.equal(size.indexOf(Math.max(...size)), 1, `bounds ${JSON.stringify(record.bounds)}`);
      assert.deepEqual(pageErrors, []);
    });
  },
);
