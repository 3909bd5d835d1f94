// The model page's Export menu in headless Chromium against a real server: the open menu inside the window at
// 1280×800 and 390×844; a part bound to a red material, then GLB and USDZ exported from the menu; the menu waits
// out the job (202) and hands over the file's link; an STL in the unit chosen in the menu; levels that could not be
// reduced named on the level they copy.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { catalogClient, type ModelRecord } from './support/catalog-client.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { SHOTS } from './support/viewer-session.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const TOKEN = 'e2e-export-token-0123456789';

let dataDir: string;
let server: RunningServer;
let browser: Browser | undefined;
let page: Page;
let model: ModelRecord;
const pageErrors: string[] = [];

void describe('export menu end to end', { timeout: 5 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-export-'));
    server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
    const client = catalogClient(server.baseUrl, TOKEN);
    const uploaded = await client.upload({
      name: 'cubes.glb',
      bytes: new Uint8Array(await cubesGlb(['Left', 'Right'])),
    });
    model = await client.waitCompleted(uploaded.id);
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
    const bound = await client.call(`/api/v1/materials/${material.id}/bindings`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ group_ids: [parts[1].group_id] }),
    });
    assert.equal(bound.status, 200);
    browser = await launchChromium();
    const context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      acceptDownloads: true,
    });
    await context.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  /** The model's page opened afresh and its Export menu opened, as a person would: once the model is on screen. */
  async function openMenu(): Promise<void> {
    await page.goto(`${server.baseUrl}/#/models/${model.id}`);
    // A second visit of the same address keeps the page (and the open menu); start each test afresh.
    await page.reload();
    // A fresh page's first frames can be slow in software GL, and a click waits for the page's next frames.
    await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
    await page.locator('.export-menu summary').click({ timeout: 60_000 });
  }

  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    void test(`at ${size.width}×${size.height} the open menu lies inside the window`, async () => {
      await page.setViewportSize(size);
      await openMenu();
      const panel = page.locator('.export-menu .menu-panel');
      for (const box of [
        await panel.boundingBox(),
        ...(await Promise.all((await panel.locator('button').all()).map((button) => button.boundingBox()))),
      ]) {
        assert.ok(box, 'laid out');
        assert.ok(
          box.x >= 0 && box.y >= 0 && box.x + box.width <= size.width && box.y + box.height <= size.height,
          `spans x ${box.x}–${box.x + box.width}, y ${box.y}–${box.y + box.height}`,
        );
      }
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.equal(overflow, 0, 'no sideways scrolling with the menu open');
      // A click outside closes it.
      await page.locator('h1').click();
      await panel.waitFor({ state: 'hidden' });
      await page.setViewportSize({ width: 1280, height: 800 });
      assert.deepEqual(pageErrors, []);
    });
  }

  for (const [format, extension, magic] of [
    ['glb', '.glb', 'glTF'],
    ['usdz', '.usdz', 'PK\x03\x04'],
  ] as const) {
    void test(`exports ${format} from the menu with the bound material`, async () => {
      await openMenu();
      const download = page.waitForEvent('download', { timeout: 60_000 });
      await page.locator(`.export-menu button[data-format="${format}"]`).click();
      const link = page.locator('.export-menu .export-status a');
      await link.waitFor({ timeout: 60_000 });
      assert.match((await link.textContent()) ?? '', new RegExp(`cubes\\${extension}$`));
      const file = await (await download).path();
      const bytes = await readFile(file);
      assert.equal(bytes.subarray(0, 4).toString('latin1'), magic);
      if (format === 'glb') {
        // The bound red (linear 1, 0, 0) is in the file's materials.
        assert.match(bytes.toString('latin1'), /"baseColorFactor":\[1,0,0,1\]/);
      }
      assert.deepEqual(pageErrors, []);
    });
  }
  void test('exports STL in the unit chosen in the menu', async () => {
    await openMenu();
    const unit = page.getByRole('combobox', { name: 'STL and 3MF measured in' });
    assert.equal(await unit.inputValue(), 'millimeter', 'the API default comes first');
    await unit.selectOption({ label: 'cm' });
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/export?')) asked.push(request.url());
    });
    const download = page.waitForEvent('download', { timeout: 60_000 });
    await page.locator('.export-menu button[data-format="stl"]').click();
    await page.locator('.export-menu .export-status a').waitFor({ timeout: 60_000 });
    assert.ok(
      asked.length > 0 && asked.every((url) => new URL(url).searchParams.get('unit') === 'centimeter'),
      `asked for centimetres: ${asked.join(', ')}`,
    );
    const stl = await readFile(await (await download).path());
    // The cubes stand 1 m tall; the STL is written +Z up in centimetres.
    let low = Infinity;
    let high = -Infinity;
    for (let t = 0; t < stl.readUInt32LE(80); t += 1) {
      for (let corner = 0; corner < 3; corner += 1) {
        const z = stl.readFloatLE(84 + t * 50 + 12 + corner * 12 + 8);
        low = Math.min(low, z);
        high = Math.max(high, z);
      }
    }
    assert.ok(Math.abs(high - low - 100) < 0.01, `the cubes are ${high - low} cm tall`);
    assert.deepEqual(pageErrors, []);
  });
  void test('levels that could not be reduced are listed on the level they copy', async () => {
    await page.goto(`${server.baseUrl}/#/models/${model.id}`);
    await page.reload();
    await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
    const answer = await catalogClient(server.baseUrl, TOKEN).call(`/api/models/${model.id}`);
    const lods = ((await answer.json()) as { data: { lods: { level: number; reduced: boolean | null }[] } })
      .data.lods;
    const copies = lods.filter((lod) => lod.level > 0 && lod.reduced === false).map((lod) => lod.level);
    // Twelve triangles a cube: nothing to take away.
    assert.deepEqual(copies, [1, 2], 'the cubes could not be reduced');
    const switcher = page.locator('.lod-switcher');
    if (SHOTS) await switcher.screenshot({ path: join(SHOTS, 'lod-switcher-folded.png') });
    assert.equal(await switcher.getByRole('radio').count(), 1, 'one level to choose');
    assert.match((await switcher.textContent()) ?? '', /LOD 0.*also LOD 1, LOD 2 \(not reduced\)/);
    await page.locator('.export-menu summary').click();
    const options = await page
      .getByRole('combobox', { name: 'Level of detail' })
      .locator('option')
      .allTextContents();
    assert.deepEqual(options.slice(1), [
      'LOD 1 · same as LOD 0 (not reduced)',
      'LOD 2 · same as LOD 0 (not reduced)',
    ]);
    assert.deepEqual(pageErrors, []);
  });
});
