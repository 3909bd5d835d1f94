// The catalog in headless Chromium against a real server: a material bound to a model's part, through the API,
// shows in the model's catalog thumbnail within 10 s, with no Regenerate and no reload.
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
import { countPixels, decodePng, isRed, pixelAt } from './support/pixels.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { zUpHouseObj } from '../fixtures/z-up-house.ts';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const TOKEN = 'e2e-thumbnail-refresh-token-0123456789';
const FOLLOW_MS = 10_000;
/** Where the screenshots go when VITRINE_E2E_SHOTS names a folder, to look at. */
const SHOTS = process.env.VITRINE_E2E_SHOTS;

let dataDir: string;
let server: RunningServer;
let browser: Browser | undefined;
let page: Page;
let model: ModelRecord;
let client: ReturnType<typeof catalogClient>;
const pageErrors: string[] = [];

void describe(
  'catalog thumbnails follow bindings end to end',
  { timeout: 5 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      ensureViewerBuilt(REPO);
      dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-thumbnail-refresh-'));
      server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
      client = catalogClient(server.baseUrl, TOKEN);
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

    void test('a binding change turns the catalog thumbnail red within 10 s', async () => {
      await page.goto(`${server.baseUrl}/#/`);
      const image = page.locator(`.model-card[data-model-id="${model.id}"] .thumb img`);
      await image.waitFor({ timeout: 60_000 });
      const before = await image.getAttribute('src');
      const parts = (await (await client.call(`/api/models/${model.id}/parts`)).json()).data as {
        group_id: string;
      }[];
      const json = { 'Content-Type': 'application/json' };
      const created = await client.call('/api/v1/materials', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'Red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 }),
      });
      const material = (await created.json()).data as { id: number };

      const boundAt = Date.now();
      const bound = await client.call(`/api/v1/materials/${material.id}/bindings`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ group_ids: [parts[0].group_id] }),
      });
      assert.equal(bound.status, 200);
      await page.waitForFunction(
        ([selector, old]) => document.querySelector(selector)?.getAttribute('src') !== old,
        [`.model-card[data-model-id="${model.id}"] .thumb img`, before] as const,
        { timeout: FOLLOW_MS },
      );
      const took = Date.now() - boundAt;
      assert.ok(took <= FOLLOW_MS, `the catalog showed the new thumbnail after ${took} ms`);
      await image.evaluate((element: HTMLImageElement) => element.decode());
      const png = await image.screenshot({ timeout: 60_000 });
      if (SHOTS) await writeFile(join(SHOTS, 'catalog-thumbnail-red.png'), png);
      const pixels = await decodePng(png);
      const red = countPixels(pixels, (rgb) => isRed(rgb));
      assert.ok(
        red > pixels.width * pixels.height * 0.05,
        `red pixels: ${red}, corner ${pixelAt(pixels, 0, 0)}`,
      );
      assert.deepEqual(pageErrors, []);
    });
  },
);
