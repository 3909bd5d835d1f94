// The viewer end to end: real server process, real headless Chromium, the CesiumMilkTruck sample.
// Upload → converted → opened and drawn → part picked on the canvas → bound to a new red material
// (red pixels where the part is) → LOD switch changes the triangle count → model deleted.
// With VITRINE_SCREENSHOTS=1 it also writes docs/catalog.png and docs/model.png.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import type { Browser, Locator, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import {
  countPixels,
  decodePng,
  differs,
  findModelPixel,
  hexToRgb,
  isGreen,
  isRed,
  pixelAt,
} from './support/pixels.ts';
import type { Pixels } from './support/pixels.ts';
import { startServer } from './support/server-process.ts';
import type { RunningServer } from './support/server-process.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const MODELS = SAMPLE_MODELS;
const TRUCK = join(MODELS, 'glb/CesiumMilkTruck.glb');
const TOKEN = 'e2e-viewer-token-0123456789';
/** Must match VIEW_BACKGROUND in web/src/viewer/model-viewport.ts. */
const BACKGROUND = hexToRgb('#262b36');
const SCREENSHOTS = process.env.VITRINE_SCREENSHOTS === '1';
/** Extra samples uploaded only for the documentation screenshot, so the catalog is not a single card. */
const SCREENSHOT_EXTRAS = [
  'glb/barrel.glb',
  'ifc/IfcOpenHouse_IFC4.ifc',
  'obj/spot_triangulated.obj',
  'ply/Wuson.ply',
  'step/red_cube_blue_cylinder.step',
  'fbx/cubes_with_names.fbx',
];
const CONVERSION_TIMEOUT_MS = 240_000;

let dataDir: string;
let server: RunningServer | undefined;
let browser: Browser | undefined;
let page: Page;
const pageErrors: string[] = [];

/** State carried from step to step. */
const run: {
  modelId?: string;
  clickPoint?: { x: number; y: number };
  groupId?: string;
  redBefore?: number;
  greenBefore?: number;
} = {};

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  assert.ok(server, 'server is running');
  return fetch(server.baseUrl + path, {
    ...init,
    headers: { 'X-API-Token': TOKEN, ...(init.body ? { 'Content-Type': 'application/json' } : {}) },
  });
}

/** A screenshot of the 3D view, decoded. */
async function viewPixels(): Promise<Pixels> {
  return decodePng(await page.locator('.viewer canvas').screenshot());
}

/** Polls `check` on fresh screenshots until it passes; the view renders on the next frame after a change. */
async function untilView(
  check: (pixels: Pixels) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<Pixels> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pixels = await viewPixels();
    if (check(pixels)) return pixels;
    if (Date.now() > deadline) throw new Error(`the view never showed ${what}`);
    await page.waitForTimeout(250);
  }
}

/** Fails with the message of any error notice the viewer shows. */
async function assertNoErrorNotice(): Promise<void> {
  const notices = await page.locator('.notice-error').allTextContents();
  assert.deepEqual(notices, [], 'the viewer reported an error');
}

/** Uploads through the file picker (or by dropping it on the drop zone) and waits until the item settles. */
async function uploadAndSettle(
  file: string,
  how: 'pick' | 'drop' = 'pick',
): Promise<{ status: string; item: Locator }> {
  const name = basename(file);
  if (how === 'pick') {
    await page.locator('.upload-panel input[type=file]').setInputFiles(file);
  } else {
    const bytes = [...(await readFile(file))];
    await page.locator('.drop-zone').evaluate(
      (zone, { fileName, content }) => {
        const transfer = new DataTransfer();
        transfer.items.add(new File([new Uint8Array(content)], fileName));
        zone.dispatchEvent(
          new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }),
        );
        zone.dispatchEvent(
          new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }),
        );
      },
      { fileName: name, content: bytes },
    );
  }
  const item = page.locator(`.upload-item[data-file="${name}"]`).first();
  await item.waitFor();
  await page.waitForFunction(
    (fileName) => {
      const status = document.querySelector<HTMLElement>(`.upload-item[data-file="${fileName}"]`)?.dataset
        .status;
      return status === 'completed' || status === 'failed' || status === 'upload-failed';
    },
    name,
    { timeout: CONVERSION_TIMEOUT_MS, polling: 500 },
  );
  return { status: (await item.getAttribute('data-status')) ?? '', item };
}

/** Uploads a model that must convert; returns its id from the item's link. */
async function uploadAndWait(file: string): Promise<string> {
  const { status, item } = await uploadAndSettle(file);
  assert.equal(
    status,
    'completed',
    `conversion of ${basename(file)}: ${await item.textContent()}\n--- server output ---\n${server?.output().slice(-3000)}`,
  );
  const href = await item.getByRole('link', { name: /^Open / }).getAttribute('href');
  const id = /#\/models\/(.+)$/.exec(href ?? '')?.[1];
  assert.ok(id, `the upload links to its model (${href})`);
  return decodeURIComponent(id);
}

/** Fills the catalog with a few more samples and photographs it for the README. */
async function catalogScreenshot(): Promise<void> {
  for (const sample of SCREENSHOT_EXTRAS) await uploadAndWait(join(MODELS, sample));
  await page.locator('.upload-list').evaluate((list) => list.replaceChildren());
  await page.waitForFunction(() =>
    Array.from(document.querySelectorAll<HTMLImageElement>('.model-card img')).every((img) => img.complete),
  );
  await page.screenshot({ path: join(REPO, 'docs/catalog.png') });
}

/** Photographs the model page with the painted part selected, then clears the selection again. */
async function modelScreenshot(): Promise<void> {
  await page.locator(`.part-button[data-group-id="${run.groupId}"]`).click();
  await page.locator('.notice').evaluateAll((notices) => notices.forEach((notice) => notice.remove()));
  await page.evaluate(() => {
    window.scrollTo(0, 0);
    document.querySelector('.sidebar')?.scrollTo(0, 0);
  });
  await page.waitForTimeout(500);
  await page.screenshot({ path: join(REPO, 'docs/model.png') });
  await page.getByRole('button', { name: 'Clear selection' }).click();
}

void describe('web viewer end to end', { timeout: 15 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    assert.ok(existsSync(TRUCK), `sample model missing: ${TRUCK}`);
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-'));
    server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
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

  void test('asks for the API token once and keeps it', async () => {
    assert.ok(server);
    await page.goto(server.baseUrl + '/');
    await page.getByLabel('API token').fill('wrong-token-value');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByText(/rejected this token/).waitFor();
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    assert.equal(await page.evaluate(() => localStorage.getItem('vitrine.apiToken')), TOKEN);
    // The browser logs the deliberate 401 above as a failed resource; later steps must log nothing.
    pageErrors.length = 0;
  });

  void test('uploads the truck and follows its conversion to completed', async () => {
    // Slow the upload to ~150 KB/s so the byte progress has time to show, and record every state shown.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 150 * 1024,
    });
    await page.evaluate(() => {
      const seen: string[] = [];
      Object.assign(window, { uploadStates: seen });
      new MutationObserver(() => {
        const text = document.querySelector('.upload-state')?.textContent ?? '';
        if (text && seen.at(-1) !== text) seen.push(text);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    try {
      run.modelId = await uploadAndWait(TRUCK);
    } finally {
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await cdp.detach();
    }
    const states = await page.evaluate(() => (window as unknown as { uploadStates: string[] }).uploadStates);
    const uploading = states.flatMap((text) => /^Uploading (\d+) %$/.exec(text)?.[1] ?? []).map(Number);
    assert.ok(
      uploading.some((percent) => percent > 0 && percent < 100),
      `upload progress between 0 and 100 % (${states.join(' | ')})`,
    );
    const converting = states.findIndex((text) => /^(Waiting for conversion|Converting) \d+ %$/.test(text));
    const lastUpload = states.findLastIndex((text) => text.startsWith('Uploading'));
    assert.ok(converting > lastUpload, `conversion progress follows the upload (${states.join(' | ')})`);
    assert.equal(states.at(-1), 'Converted');
    const card = page.locator(`.model-card[data-model-id="${run.modelId}"]`);
    await card.waitFor();
    await page.waitForFunction(
      (id) =>
        document.querySelector(`.model-card[data-model-id="${id}"]`)?.getAttribute('data-status') ===
        'completed',
      run.modelId,
      { timeout: 10_000 },
    );
    assert.match((await card.textContent()) ?? '', /CesiumMilkTruck/);
    assert.match((await card.locator('.triangles').textContent()) ?? '', /^[\d,]+ triangles$/);
    await assertNoErrorNotice();
    if (SCREENSHOTS) await catalogScreenshot();
  });

  void test('takes a dropped file, shows its failed conversion and reprocesses it', async () => {
    // The truck cut short: accepted as a GLB by its header, refused by the converter.
    const broken = join(dataDir, 'truncated-truck.glb');
    await writeFile(broken, (await readFile(TRUCK)).subarray(0, 20_000));
    const { status, item } = await uploadAndSettle(broken, 'drop');
    assert.equal(status, 'failed', (await item.textContent()) ?? '');
    assert.match((await item.locator('.upload-state').textContent()) ?? '', /^Conversion failed: \S/);
    const reprocessed = page.waitForResponse(
      (response) => /\/api\/models\/[^/]+\/reprocess$/.test(response.url()) && response.status() === 200,
    );
    await item.getByRole('button', { name: 'Reprocess' }).click();
    await reprocessed;
    // The same bytes fail again: the item follows the new attempt back to failed.
    await page.waitForFunction(
      () =>
        document.querySelector<HTMLElement>('.upload-item[data-file="truncated-truck.glb"]')?.dataset
          .status === 'failed',
      undefined,
      { timeout: CONVERSION_TIMEOUT_MS },
    );
    const card = page.locator('.model-card[data-status="failed"]').filter({ hasText: 'truncated-truck' });
    await card.waitFor();
    assert.match((await card.locator('.error-text').textContent()) ?? '', /\S/);
    await page.locator('.upload-list').evaluate((list) => list.replaceChildren());
    await page.locator('.notice').evaluateAll((notices) => notices.forEach((notice) => notice.remove()));
  });

  void test('filters the catalog by search, status and format', async () => {
    assert.ok(run.modelId, 'needs the uploaded model');
    const card = page.locator(`.model-card[data-model-id="${run.modelId}"]`);
    const search = page.getByLabel('Search');
    await search.fill('milktruck');
    await card.waitFor();
    await search.fill('no-such-model-anywhere');
    await page.getByText('No model matches these filters.').waitFor();
    await search.fill('');
    await card.waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await card.waitFor({ state: 'detached' });
    await page.getByLabel('Status').selectOption('completed');
    await card.waitFor();
    await page.getByLabel('Format').selectOption('stl');
    await card.waitFor({ state: 'detached' });
    await page.getByLabel('Format').selectOption('glb');
    await card.waitFor();
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Format').selectOption('');
    await assertNoErrorNotice();
  });

  void test('opens the model and draws it', async () => {
    assert.ok(run.modelId, 'needs the uploaded model');
    await page.locator(`.model-card[data-model-id="${run.modelId}"] a`).click();
    await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
    await page.locator('.viewer[data-paint]').waitFor();
    const pixels = await untilView(
      (shot) => countPixels(shot, (rgb) => differs(rgb, BACKGROUND)) > shot.width * shot.height * 0.03,
      'the model (only background pixels)',
    );
    run.clickPoint = findModelPixel(pixels, BACKGROUND) ?? undefined;
    assert.ok(run.clickPoint, 'a solid model pixel to click');
    run.redBefore = countPixels(pixels, isRed);
    run.greenBefore = countPixels(pixels, isGreen);
    const partCount = await page.locator('.part-button').count();
    assert.ok(partCount > 1, `the parts tree lists the truck's parts (${partCount})`);
    await assertNoErrorNotice();
  });

  void test('selects the part under the pointer by clicking the canvas', async () => {
    assert.ok(run.clickPoint, 'needs the drawn model');
    await page.locator('.viewer canvas').click({ position: run.clickPoint });
    const pressed = page.locator('.part-button[aria-pressed="true"]');
    await pressed.first().waitFor();
    assert.equal(await pressed.count(), 1);
    run.groupId = (await pressed.getAttribute('data-group-id')) ?? undefined;
    assert.ok(run.groupId);
    assert.match((await page.locator('.selection-summary').textContent()) ?? '', /^Selected: /);

    // From the keyboard, Shift+Enter on another part adds it, and again removes it.
    const other = page.locator('.part-button[aria-pressed="false"]').first();
    await other.focus();
    await page.keyboard.press('Shift+Enter');
    await page.locator('.selection-summary', { hasText: '2 parts selected' }).waitFor();
    await page.keyboard.press('Shift+Enter');
    await page.locator('.selection-summary', { hasText: /^Selected: / }).waitFor();
    assert.equal(await pressed.getAttribute('data-group-id'), run.groupId);
  });

  void test('binds the part to a new red material and paints it red', async () => {
    assert.ok(run.groupId, 'needs a selected part');
    await page.getByRole('button', { name: 'New material' }).click();
    const form = page.locator('form.material-form');
    await form.getByLabel('Name', { exact: true }).fill('E2E red');
    await form.getByLabel('Diffuse colour').fill('#ff0000');
    await page.getByRole('button', { name: 'Create material' }).click();
    await page.getByRole('heading', { name: /^Material #\d+$/ }).waitFor();
    await page.getByRole('button', { name: 'Bind selected parts to “E2E red”' }).click();
    await page.locator('.viewer[data-paint="1"]').waitFor();
    // Clear the selection so its outline does not cross the pixels being checked.
    await page.getByRole('button', { name: 'Clear selection' }).click();
    const point = run.clickPoint;
    assert.ok(point && run.redBefore !== undefined);
    const redBefore = run.redBefore;
    const pixels = await untilView(
      (shot) => isRed(pixelAt(shot, point.x, point.y)) && countPixels(shot, isRed) > redBefore + 200,
      'red where the part is',
    );
    assert.ok(countPixels(pixels, isRed) > redBefore + 200);

    const answer = await api('/api/v1/groups/materials', {
      method: 'POST',
      body: JSON.stringify({ group_ids: [run.groupId] }),
    });
    const body = (await answer.json()) as {
      data: { group_id: string; material: { name: string; diffuse_r: number; diffuse_g: number } }[];
    };
    assert.equal(body.data.length, 1);
    assert.equal(body.data[0].material.name, 'E2E red');
    assert.deepEqual([body.data[0].material.diffuse_r, body.data[0].material.diffuse_g], [255, 0]);
    await assertNoErrorNotice();
    if (SCREENSHOTS) await modelScreenshot();
  });

  void test('switches the level of detail and shows fewer triangles', async () => {
    assert.ok(run.groupId, 'needs the painted part');
    const label = page.locator('.triangle-count');
    const triangles = async (): Promise<number> =>
      Number(/: ([\d,]+) triangles/.exec((await label.textContent()) ?? '')?.[1]?.replaceAll(',', '') ?? NaN);
    const full = await triangles();
    assert.ok(full > 0, `LOD 0 shows its triangles (${await label.textContent()})`);
    // The coarsest level the truck has a file of its own for (one that could not be reduced has no button).
    const coarsest = page.locator('.lod-switcher input[type="radio"]').last();
    const level = await coarsest.inputValue();
    assert.notEqual(level, '0', 'the truck has a reduced level');
    await coarsest.check();
    await page.waitForFunction(
      (chosen) =>
        document.querySelector('.triangle-count')?.textContent?.startsWith(`LOD ${chosen}: `) === true &&
        document.querySelector('.viewer')?.getAttribute('data-state') === 'ready',
      level,
      { timeout: 30_000 },
    );
    const reduced = await triangles();
    assert.ok(
      reduced > 0 && reduced < full,
      `LOD ${level} draws fewer triangles (${reduced}) than LOD 0 (${full})`,
    );
    // The part keeps its node in every level, so it stays painted.
    await untilView((shot) => countPixels(shot, isRed) > 200, `the bound part still red at LOD ${level}`);
    await assertNoErrorNotice();
  });

  void test('repaints at once when the bound material is edited', async () => {
    assert.ok(run.greenBefore !== undefined && run.redBefore !== undefined, 'needs the painted part');
    const greenBefore = run.greenBefore;
    const redBefore = run.redBefore;
    const form = page.locator('form.material-form');
    await form.getByLabel('Diffuse colour').fill('#00ff00');
    await form.getByRole('button', { name: 'Save material' }).click();
    await untilView(
      (shot) => countPixels(shot, isGreen) > greenBefore + 200 && countPixels(shot, isRed) < redBefore + 200,
      'the part turned from red to green',
    );
    await assertNoErrorNotice();
  });

  void test('unbinds the part so its own material shows again', async () => {
    assert.ok(run.groupId && run.greenBefore !== undefined, 'needs the painted part');
    const greenBefore = run.greenBefore;
    await page.locator(`.part-button[data-group-id="${run.groupId}"]`).click();
    await page.getByRole('button', { name: 'Unbind selected parts' }).click();
    await page.locator('.viewer[data-paint="0"]').waitFor();
    await page.getByRole('button', { name: 'Clear selection' }).click();
    await untilView(
      (shot) => countPixels(shot, isGreen) < greenBefore + 200,
      'the part back to its own look',
    );
    const answer = await api('/api/v1/groups/materials', {
      method: 'POST',
      body: JSON.stringify({ group_ids: [run.groupId] }),
    });
    assert.deepEqual(((await answer.json()) as { data: unknown[] }).data, []);
    await assertNoErrorNotice();
  });

  void test('fits a narrow window without sideways scrolling', async () => {
    assert.ok(run.modelId, 'needs the uploaded model');
    await page.setViewportSize({ width: 390, height: 800 });
    try {
      const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      await page.locator('.viewer[data-state="ready"]').waitFor();
      assert.ok((await overflow()) <= 0, 'model page wider than the window');
      const canvas = await page.locator('.viewer canvas').boundingBox();
      assert.ok(
        canvas && canvas.width > 300 && canvas.width <= 390,
        `canvas fits (${JSON.stringify(canvas)})`,
      );
      await page.getByRole('link', { name: '← Models' }).click();
      await page.locator(`.model-card[data-model-id="${run.modelId}"]`).waitFor();
      assert.ok((await overflow()) <= 0, 'catalog wider than the window');
      await page.locator(`.model-card[data-model-id="${run.modelId}"] a`).click();
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  void test('edits the details and replaces, then regenerates, the thumbnail', async () => {
    assert.ok(run.modelId, 'needs the uploaded model');
    // The details form is on the Details tab beside the view.
    await page.getByRole('tab', { name: 'Details' }).click();
    const details = page.locator('.model-details');
    await details.getByLabel('Name', { exact: true }).fill('Milk truck (edited)');
    await details.getByLabel('Tags').fill('vehicle, demo');
    await details.getByRole('button', { name: 'Save details' }).click();
    await page.getByRole('heading', { name: 'Milk truck (edited)', level: 1 }).waitFor();
    const saved = (await (await api(`/api/models/${run.modelId}`)).json()) as {
      data: { name: string; tags: string[] };
    };
    assert.equal(saved.data.name, 'Milk truck (edited)');
    assert.deepEqual(saved.data.tags, ['vehicle', 'demo']);

    const image = details.locator('.thumb img');
    const thumbnailUrl = async (): Promise<string> =>
      ((await (await api(`/api/models/${run.modelId}`)).json()) as { data: { thumbnail_url: string } }).data
        .thumbnail_url;
    const pngFile = join(dataDir, 'blue-thumbnail.png');
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0000ff' } })
      .png()
      .toFile(pngFile);
    const before = await image.getAttribute('src');
    await details.locator('input[type=file]').setInputFiles(pngFile);
    await page.waitForFunction(
      (old) => document.querySelector('.model-details .thumb img')?.getAttribute('src') !== old,
      before,
    );
    const uploaded = await image.getAttribute('src');
    assert.equal(uploaded, await thumbnailUrl());

    await details.getByRole('button', { name: 'Regenerate thumbnail' }).click();
    await page.waitForFunction(
      (old) => document.querySelector('.model-details .thumb img')?.getAttribute('src') !== old,
      uploaded,
      { timeout: 60_000 },
    );
    assert.equal(await image.getAttribute('src'), await thumbnailUrl());
    await assertNoErrorNotice();
  });

  void test('deletes the model after confirmation', async () => {
    assert.ok(run.modelId, 'needs the uploaded model');
    let question = '';
    page.once('dialog', (dialog) => {
      question = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Delete model' }).click();
    await page.waitForURL(/#\/$/);
    assert.match(question, /^Delete “Milk truck \(edited\)”\?/);
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    await page.waitForFunction(
      (id) => !document.querySelector(`.model-card[data-model-id="${id}"]`),
      run.modelId,
    );
    const response = await api(`/api/models/${run.modelId}`);
    assert.equal(response.status, 404);
    assert.deepEqual(pageErrors, [], 'no script errors in the page');
    // Opening the deleted model again shows the API's own message instead of an empty page.
    await page.goto(`${server?.baseUrl}/#/models/${run.modelId}`);
    await page.getByRole('heading', { name: 'Model not available' }).waitFor();
    await page.getByText('Model not found').waitFor();
    await assertNoErrorNotice();
  });
});
