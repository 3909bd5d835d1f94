// The viewer's lighting and inspection tools in headless Chromium against one real server: shaded white parts,
// selection and Esc, isolate/hide/x-ray, animation, measuring, section planes, downloads and a catalog whose
// filters survive a reload. Samples are uploaded through the API once; each test then drives the page.
// With VITRINE_SCREENSHOTS=1 every state is also photographed into docs/ at 1280×800 and 390×844.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { catalogClient } from './support/catalog-client.ts';
import type { ModelRecord } from './support/catalog-client.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { countPixels, decodePng, differs, hexToRgb, pixelAt } from './support/pixels.ts';
import type { Pixels } from './support/pixels.ts';
import { startServer } from './support/server-process.ts';
import type { RunningServer } from './support/server-process.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const MODELS = SAMPLE_MODELS;
const TOKEN = 'e2e-inspect-token-0123456789';
/** Must match VIEW_BACKGROUND in web/src/viewer/model-viewport.ts. */
const BACKGROUND = hexToRgb('#262b36');
const SCREENSHOTS = process.env.VITRINE_SCREENSHOTS === '1';

let dataDir: string;
let server: RunningServer;
let browser: Browser | undefined;
let page: Page;
let client: ReturnType<typeof catalogClient>;
const pageErrors: string[] = [];
const models: { counter?: ModelRecord; truck?: ModelRecord } = {};
const COUNTER = join(MODELS, 'stl/counter.unitsmm.STL');
const TRUCK = join(MODELS, 'glb/CesiumMilkTruck.glb');

const isModel = (rgb: [number, number, number]): boolean => differs(rgb, BACKGROUND);
const isPureWhite = ([r, g, b]: [number, number, number]): boolean => r >= 250 && g >= 250 && b >= 250;

/** Pixels trimmed off each side of a view screenshot: the canvas' fractional CSS size blends its outermost ones with the page. */
const EDGE = 3;

/** A screenshot of the 3D view, decoded, without its {@link EDGE}; pixel (0, 0) is (EDGE, EDGE) on the canvas. */
async function viewPixels(): Promise<Pixels> {
  const full = await decodePng(await page.locator('.viewer canvas').screenshot());
  const width = full.width - 2 * EDGE;
  const height = full.height - 2 * EDGE;
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    full.data.copy(
      data,
      y * width * 3,
      ((y + EDGE) * full.width + EDGE) * 3,
      ((y + EDGE) * full.width + EDGE + width) * 3,
    );
  }
  return { width, height, data };
}

/** Opens a model page and waits until its first level is drawn. */
async function openModel(id: string): Promise<void> {
  await page.goto(`${server.baseUrl}/#/models/${id}`);
  await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
  // The first frame is drawn on the animation frame after loading.
  await page.waitForTimeout(300);
}

/** Every vertex of a binary STL, as [x, y, z] in the file's numbers (which the catalog takes as metres). */
function stlVertices(bytes: Buffer): number[][] {
  const count = bytes.readUInt32LE(80);
  const vertices: number[][] = [];
  for (let i = 0; i < count; i += 1) {
    const base = 84 + i * 50 + 12;
    for (let v = 0; v < 3; v += 1) {
      const at = base + v * 12;
      vertices.push([bytes.readFloatLE(at), bytes.readFloatLE(at + 4), bytes.readFloatLE(at + 8)]);
    }
  }
  return vertices;
}

/** The file vertex nearest `point`, and how far away it is. */
function nearestVertex(vertices: number[][], point: number[]): { at: number[]; gap: number } {
  let best = { at: vertices[0], gap: Infinity };
  for (const vertex of vertices) {
    const gap = Math.hypot(vertex[0] - point[0], vertex[1] - point[1], vertex[2] - point[2]);
    if (gap < best.gap) best = { at: vertex, gap };
  }
  return best;
}

/** The leftmost and rightmost model pixels of a view, on the middle row of each extreme column. */
function extremes(pixels: Pixels): { left: { x: number; y: number }; right: { x: number; y: number } } {
  const column = (x: number): number[] => {
    const rows: number[] = [];
    for (let y = 0; y < pixels.height; y += 1) if (isModel(pixelAt(pixels, x, y))) rows.push(y);
    return rows;
  };
  const find = (from: number, step: number) => {
    for (let x = from; x >= 0 && x < pixels.width; x += step) {
      const rows = column(x);
      if (rows.length > 0) return { x, y: rows[Math.floor(rows.length / 2)] };
    }
    throw new Error('no model pixels in the view');
  };
  return { left: find(0, 1), right: find(pixels.width - 1, -1) };
}

/** Scrolls so the tools under the view are in sight, with as much of the view as fits above them. */
async function showTools(): Promise<void> {
  await page.evaluate(() => document.querySelector('.model-page .hint')?.scrollIntoView({ block: 'end' }));
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

const SUITE = { timeout: 10 * 60_000, skip: skipWithoutChromium };

void describe('viewer inspection tools end to end', SUITE, () => {
  before(async () => {
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-inspect-'));
    server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
    client = catalogClient(server.baseUrl, TOKEN);
    const counter = await client.upload(COUNTER);
    const truck = await client.upload(TRUCK);
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    models.counter = await client.waitCompleted(counter.id);
    models.truck = await client.waitCompleted(truck.id);
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

  void test('Esc clears a selection made in the parts tree', async () => {
    assert.ok(models.truck);
    await openModel(models.truck.id);
    const viewport = page.locator('.viewer');
    const first = page.locator('.part-button').first();
    await first.click();
    assert.equal(await first.getAttribute('aria-pressed'), 'true');
    assert.equal(await viewport.getAttribute('data-selected'), '1');
    // The focus is on the tree's button now, not on the canvas.
    assert.equal(await first.evaluate((button) => button === document.activeElement), true);
    await shoot('selected');
    await page.keyboard.press('Escape');
    assert.equal(await viewport.getAttribute('data-selected'), '0');
    assert.equal(await first.getAttribute('aria-pressed'), 'false');
    assert.equal(await page.locator('.selection-summary').textContent(), 'No part selected');
  });

  void test('finds parts by name in the tree', async () => {
    const search = page.getByLabel('Find part');
    const names = await page.locator('.part-name').allTextContents();
    const target = names.find((name) => name && names.filter((other) => other === name).length === 1);
    assert.ok(target, `a part with a unique name (${names.join(', ')})`);
    await search.fill(target.slice(0, Math.max(3, target.length - 1)).toUpperCase());
    const visible = page.locator('.parts-tree li:not([hidden]) > .part-button');
    assert.ok((await visible.count()) >= 1 && (await visible.count()) < names.length);
    assert.ok((await visible.locator('.part-name').allTextContents()).includes(target));
    await shoot('part-search');
    await search.fill('');
    assert.equal(await visible.count(), names.length);
  });

  void test('isolate leaves only the selected part; hiding it too leaves nothing; show all brings all back', async () => {
    // The part with the most triangles, so it is large on screen.
    const counts = await page
      .locator('.part-button small')
      .allTextContents()
      .then((texts) => texts.map((text) => Number(text.replace(/[^\d]/g, ''))));
    const biggest = counts.indexOf(Math.max(...counts));
    await page.locator('.part-button').nth(biggest).click();
    await page.waitForTimeout(300);
    // Counted with the part selected, so its highlight box is in both counts.
    const all = countPixels(await viewPixels(), isModel);
    await page.getByRole('button', { name: 'Isolate' }).click();
    await page.waitForTimeout(300);
    const isolated = await viewPixels();
    const isolatedCount = countPixels(isolated, isModel);
    // Isolating also frames the part, so it fills a good share of the view on its own.
    const share = isolatedCount / (isolated.width * isolated.height);
    assert.ok(share > 0.1, `the isolated part covers ${(share * 100).toFixed(1)} % of the view`);
    await shoot('isolated', showTools);
    // Hiding the one part left must leave an empty view: nothing else was drawn.
    await page.getByRole('button', { name: 'Hide' }).click();
    await page.waitForTimeout(300);
    assert.equal(countPixels(await viewPixels(), isModel), 0, 'only the isolated part was visible');
    await page.getByRole('button', { name: 'Show all' }).click();
    await page.waitForTimeout(300);
    const back = countPixels(await viewPixels(), isModel);
    assert.ok(Math.abs(back - all) < all * 0.05, `all parts back, framed as before (${back} vs ${all})`);
  });

  void test('x-ray ghosts the other parts and keeps the selection on top', async () => {
    const before = await viewPixels();
    await page.getByRole('button', { name: 'X-ray' }).click();
    await page.waitForTimeout(300);
    const ghosted = await viewPixels();
    const isHighlight = ([r, g, b]: [number, number, number]) => r > 150 && r - b > 80 && g > 80;
    assert.ok(
      countPixels(ghosted, isHighlight) >= countPixels(before, isHighlight),
      'the selection is at least as visible under x-ray',
    );
    const dimmer = countPixels(ghosted, ([r, g, b]) => r + g + b < 200);
    assert.ok(dimmer > countPixels(before, ([r, g, b]) => r + g + b < 200), 'other parts turned see-through');
    await shoot('xray', showTools);
    await page.getByRole('button', { name: 'X-ray' }).click();
    await page.keyboard.press('Escape');
  });

  void test('plays, pauses and scrubs the animation clip', async () => {
    /** Waits until the clip's clock shows the same time twice, 300 ms apart. */
    const clockStands = async (): Promise<void> => {
      const clock = page.locator('.animation-time');
      for (let tries = 0; tries < 20; tries++) {
        const before = await clock.textContent();
        await page.waitForTimeout(300);
        if ((await clock.textContent()) === before) return;
      }
      assert.fail('the clock still runs after Pause');
    };
    const clip = page.getByLabel('Clip');
    assert.ok((await clip.locator('option').count()) >= 1, 'the truck lists its clip');
    await page.getByRole('button', { name: 'Play' }).click();
    const first = await viewPixels();
    // A screenshot takes its own time, up to most of the 1.25 s loop on a slow machine, so a second one taken a
    // fixed time later may catch the wheels at nearly the same angle: look again while the clip keeps playing.
    let changed = 0;
    for (let look = 0; look < 8 && changed <= 50; look++) {
      await page.waitForTimeout(150);
      const now = await viewPixels();
      changed = countPixels(now, (rgb, x, y) => differs(rgb, pixelAt(first, x, y), 30));
    }
    assert.ok(changed > 50, `pixels change while playing (${changed})`);
    const time = Number.parseFloat((await page.locator('.animation-time').textContent()) ?? '');
    assert.ok(time > 0, `the clock runs (${time} s)`);
    await shoot('animation', showTools);
    await page.getByRole('button', { name: 'Pause' }).click();
    // A frame asked for before the click may still be drawn on a loaded machine: look once the clock has stood.
    await clockStands();
    const paused = await viewPixels();
    await page.waitForTimeout(400);
    const still = countPixels(await viewPixels(), (rgb, x, y) => differs(rgb, pixelAt(paused, x, y), 30));
    assert.equal(still, 0, 'nothing moves while paused');
    await page.getByLabel('Animation time').fill('0');
    await page.waitForFunction(() => document.querySelector('.animation-time')?.textContent === '0.00 s');
    await page.getByLabel('Animation time').fill('500');
    const scrubbed = Number.parseFloat((await page.locator('.animation-time').textContent()) ?? '');
    assert.ok(scrubbed > 0, `scrubbing moves the clock (${scrubbed} s)`);
  });

  void test('a section plane removes the model on one side', async () => {
    const whole = await viewPixels();
    await page.getByLabel('Cut X').check();
    await page.waitForTimeout(300);
    const cut = await viewPixels();
    const removed: number[] = [];
    const kept: number[] = [];
    for (let y = 0; y < cut.height; y += 2) {
      for (let x = 0; x < cut.width; x += 2) {
        if (!isModel(pixelAt(whole, x, y))) continue;
        (isModel(pixelAt(cut, x, y)) ? kept : removed).push(x);
      }
    }
    assert.ok(
      removed.length > kept.length * 0.2,
      `a good share is cut away (${removed.length} / ${kept.length})`,
    );
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    assert.ok(
      Math.abs(mean(removed) - mean(kept)) > cut.width * 0.08,
      `the removed pixels lie on one side (${mean(removed).toFixed(0)} vs ${mean(kept).toFixed(0)})`,
    );
    await shoot('section', showTools);
    await page.getByLabel('X section position').fill('1000');
    await page.waitForTimeout(300);
    const restored = countPixels(await viewPixels(), isModel);
    assert.ok(Math.abs(restored - countPixels(whole, isModel)) < 200, 'at the far end nothing is cut');
    await page.getByLabel('Cut X').uncheck();
  });

  void test('downloads the original and a level of detail byte for byte', async () => {
    assert.ok(models.truck);
    // The downloads are on the Details tab beside the view.
    await page.getByRole('tab', { name: 'Details' }).click();
    const [original] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.download-original').click(),
    ]);
    assert.equal(original.suggestedFilename(), 'CesiumMilkTruck.glb');
    const originalBytes = await readFile((await original.path()) as string);
    assert.ok(originalBytes.equals(await readFile(TRUCK)), 'the original download is the uploaded file');
    const [lod] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.download-list a[data-level="1"]').click(),
    ]);
    const stored = Buffer.from(
      await (await fetch(models.truck.lods.find((entry) => entry.level === 1)!.url)).arrayBuffer(),
    );
    assert.ok(
      (await readFile((await lod.path()) as string)).equals(stored),
      'the LOD download is the stored LOD',
    );
    await shoot('downloads', () => page.locator('.downloads').scrollIntoViewIfNeeded());
  });

  void test('measures the distance between two vertices of the STL in metres', async () => {
    assert.ok(models.counter);
    await openModel(models.counter.id);
    // Its tags (set by the catalog test) show beside the title, each opening the catalog filtered by it.
    assert.deepEqual(await page.locator('.heading-tags a').allTextContents(), ['cad', 'Counter disk']);
    assert.equal(await page.locator('.heading-tags a').last().getAttribute('href'), '#/?tag=Counter+disk');
    const vertices = stlVertices(await readFile(COUNTER));
    await page.getByRole('button', { name: 'Measure' }).click();
    const shot = await viewPixels();
    const box = await page.locator('.viewer canvas').boundingBox();
    assert.ok(box);
    // The leftmost and rightmost model pixels lie on the rim, where the tessellation puts vertices close together.
    const { left, right } = extremes(shot);
    await page.mouse.click(box.x + EDGE + left.x + 3, box.y + EDGE + left.y);
    await page.mouse.click(box.x + EDGE + right.x - 3, box.y + EDGE + right.y);
    const controls = page.locator('.measure-controls[data-distance]');
    await controls.waitFor({ timeout: 5_000 }).catch(async (error: unknown) => {
      const readout = await page.locator('.measure-readout').textContent();
      throw new Error(`no distance after clicking ${JSON.stringify({ left, right, box })}: ${readout}`, {
        cause: error,
      });
    });
    const shown = Number(await controls.getAttribute('data-distance'));
    const from = JSON.parse((await controls.getAttribute('data-from')) ?? '[]') as number[];
    const to = JSON.parse((await controls.getAttribute('data-to')) ?? '[]') as number[];
    const a = nearestVertex(vertices, from);
    const b = nearestVertex(vertices, to);
    assert.ok(
      a.gap < 1e-4 && b.gap < 1e-4,
      `both points are vertices of the file (${a.gap}, ${b.gap} m away)`,
    );
    const truth = Math.hypot(a.at[0] - b.at[0], a.at[1] - b.at[1], a.at[2] - b.at[2]);
    assert.ok(truth > 0.01, `two different vertices (${truth} m apart)`);
    assert.ok(Math.abs(shown - truth) / truth < 0.01, `measured ${shown} m, the file says ${truth} m`);
    assert.match((await page.locator('.measure-distance').textContent()) ?? '', / m/);
    await shoot('measure', showTools);
    await page.keyboard.press('Escape');
    await page.waitForFunction(
      () => document.querySelector('.measure-controls')?.getAttribute('data-points') === '0',
    );
  });

  void test('a failed model fills the view column with its error and Reprocess', async () => {
    const broken = await client.upload({
      name: 'truncated-truck.glb',
      bytes: new Uint8Array((await readFile(TRUCK)).subarray(0, 20_000)),
    });
    await page.goto(`${server.baseUrl}/#/models/${broken.id}`);
    const pending = page.locator('.pending-view');
    await pending.getByRole('button', { name: 'Reprocess' }).waitFor({ timeout: 60_000 });
    assert.match((await pending.locator('.error-text').textContent()) ?? '', /^Conversion failed: \S/);
    const column = await page.locator('.viewer-column').boundingBox();
    const box = await pending.boundingBox();
    assert.ok(
      column && box && box.height > 300 && box.width >= column.width - 1,
      'the error takes the view’s place',
    );
    await page.locator('.download-original').waitFor();
    await shoot('failed');
  });

  void test('a converting model shows its progress where the view will be', async () => {
    // Uploaded while watching, so the page opens on a model that is not converted yet.
    const converting = await client.upload(COUNTER, { name: 'Counter converting' });
    await page.goto(`${server.baseUrl}/#/models/${converting.id}`);
    const shown = await Promise.race([
      page
        .locator('.pending-view progress')
        .waitFor({ timeout: 30_000 })
        .then(() => 'progress' as const),
      page
        .locator('.viewer[data-state="ready"]')
        .waitFor({ timeout: 30_000 })
        .then(() => 'ready' as const),
    ]);
    if (shown === 'progress') await shoot('converting');
    // Either way it ends in the view, replacing the progress in place.
    await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 120_000 });
    assert.equal(await page.locator('.pending-view').count(), 0);
  });

  void test('the materials page uses the width of a wide window and fits a narrow one', async () => {
    await page.goto(`${server.baseUrl}/#/materials`);
    await page.getByRole('heading', { name: 'Materials', level: 1 }).waitFor();
    const width = (await page.locator('.materials-page').boundingBox())?.width ?? 0;
    assert.ok(width > 1280 * 0.8, `the page is ${width} px wide at 1280`);
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `no sideways scrolling at 390 (${overflow} px)`);
    await page.setViewportSize({ width: 1280, height: 800 });
    // With a material open, the form sits beside the list.
    await page.getByRole('button', { name: 'New material' }).click();
    const form = await page.locator('form.material-form').boundingBox();
    const list = await page.locator('.material-list').boundingBox();
    assert.ok(form && list && form.x > list.x + list.width, 'the form is beside the list');
    await shoot('materials');
  });

  void test('leaves no script errors behind', () => {
    assert.deepEqual(pageErrors, []);
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
