// Progressive opening in headless Chromium: a 2 M-triangle torus (STL) is converted, then the model page, the
// share page and its embed each draw LOD 2 first, having fetched no model bytes but LOD 2's, and swap LOD 0 in
// behind it. LOD 0's file is held back until the test lets it through, so the coarse frame can be looked at and
// the view changed (zoomed, a part selected) before the swap, which must keep all of it; and a person choosing
// LOD 2 meanwhile stays there.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { torus, writeBinaryStl } from '../pipeline/torus.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { countPixels, decodePng, differs, isRed } from './support/pixels.ts';
import {
  openViewerSession,
  SHOTS,
  VIEW_BACKGROUND,
  viewShot,
  type ViewerSession,
} from './support/viewer-session.ts';

const TOKEN = 'e2e-progressive-token-0123456789';
/** 1000 × 1000 × 2 = 2 M triangles, 100 MB of STL. */
const AROUND = 1000;
const TUBE = 1000;

/** A level as the catalog and the share routes list it. */
interface Level {
  level: number;
  url: string;
  size: number;
  triangle_count: number;
  reduced: boolean | null;
}

/** What the page had fetched when it first showed a level, recorded in the page by an init script. */
interface FirstShown {
  lod: string;
  state: string;
  resources: { path: string; bytes: number }[];
}

let session: ViewerSession;
let modelId: string;
let levels: Level[];

/** Records, the moment the view first names a drawn level, every response the page has finished receiving. */
function recordFirstShown(): void {
  const page = window as unknown as { firstShown?: FirstShown };
  new MutationObserver((_changes, observer) => {
    const view = document.querySelector('.viewer[data-lod]');
    if (!view) return;
    observer.disconnect();
    const entries = performance.getEntriesByType('resource') as PerformanceResourceTiming[];
    const navigation = performance.getEntriesByType('navigation') as PerformanceResourceTiming[];
    page.firstShown = {
      lod: view.getAttribute('data-lod') ?? '',
      state: view.getAttribute('data-state') ?? '',
      resources: [...navigation, ...entries].map((entry) => ({
        path: new URL(entry.name).pathname,
        bytes: entry.encodedBodySize,
      })),
    };
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-lod'] });
}

/** Holds back every request for `path` until the returned function is called. */
async function holdBack(page: Page, path: string): Promise<() => Promise<void>> {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: Promise<void>[] = [];
  const matches = (url: URL) => url.pathname === path;
  await page.route(matches, (route) => {
    const passed = released.then(() => route.continue());
    held.push(passed);
    return passed;
  });
  return async () => {
    release();
    // Let the held requests go before the route goes, or they would be handled twice.
    await Promise.all(held);
    await page.unroute(matches);
  };
}

/** Opens `address` with LOD 0 (at `lod0Path`) held back, and checks what the first frame cost and showed. */
async function openCoarseFirst(page: Page, address: string, lods: Level[]): Promise<() => Promise<void>> {
  const lod0Path = new URL(lods[0].url, session.server.baseUrl).pathname;
  const lod2Path = new URL(lods[2].url, session.server.baseUrl).pathname;
  const release = await holdBack(page, lod0Path);
  // Going to the address the page is at already would change nothing (a hash route): load it afresh instead.
  if (page.url() === address) await page.reload();
  else await page.goto(address);
  await page.locator('.viewer[data-state="refining"][data-lod="2"]').waitFor({ timeout: 120_000 });
  const first = (await page.evaluate(() => (window as { firstShown?: FirstShown }).firstShown))!;
  assert.equal(first.lod, '2', 'the first level drawn is LOD 2');
  assert.equal(first.state, 'refining', 'and LOD 0 is still to come');
  // The share routes answer a level's address (…/lod/N) with a redirect to its file.
  const levelPaths = new Set(lods.map((lod) => new URL(lod.url, session.server.baseUrl).pathname));
  const model = first.resources.filter((entry) => levelPaths.has(entry.path) || entry.path.endsWith('.glb'));
  assert.deepEqual(
    model.map((entry) => entry.path),
    [lod2Path],
    'the only model file fetched before the first frame is LOD 2',
  );
  const modelBytes = model.reduce((sum, entry) => sum + entry.bytes, 0);
  const pageBytes = first.resources.reduce((sum, entry) => sum + entry.bytes, 0) - modelBytes;
  assert.ok(modelBytes <= lods[2].size, `model bytes ${modelBytes} within LOD 2's ${lods[2].size}`);
  assert.ok(modelBytes + pageBytes < lods[0].size, 'the first frame cost less than LOD 0 alone');
  console.log(
    `${address}: first frame after ${modelBytes} model bytes + ${pageBytes} page bytes; LOD 0 is ${lods[0].size}`,
  );
  return release;
}

/** Pixels of the canvas that show the model rather than the background. */
async function canvasShot(page: Page, name: string): Promise<{ drawn: number; red: number }> {
  await page.waitForTimeout(500);
  const box = await page.locator('.viewer canvas').boundingBox();
  assert.ok(box, 'the canvas is laid out');
  const png = await page.screenshot({ clip: box });
  if (SHOTS) await writeFile(join(SHOTS, `${name}.png`), png);
  const pixels = await decodePng(png);
  return {
    drawn: countPixels(pixels, (rgb) => differs(rgb, VIEW_BACKGROUND)),
    red: countPixels(pixels, isRed),
  };
}

void describe('progressive opening end to end', { timeout: 20 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    // Opening by levels is what is tested here: this model is above the default tiling threshold, and a tiled
    // model opens as streamed tiles instead (tiles-open.test.ts).
    session = await openViewerSession('progressive', TOKEN, { env: { TILES_ABOVE_TRIANGLES: '1000000000' } });
    const folder = await mkdtemp(join(tmpdir(), 'vitrine-e2e-torus-'));
    try {
      const file = join(folder, 'torus.stl');
      await writeBinaryStl(file, torus(AROUND, TUBE));
      const uploaded = await session.client.upload(file);
      modelId = (await session.client.waitCompleted(uploaded.id, 15 * 60_000)).id;
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    const answer = await session.client.call(`/api/models/${modelId}`);
    levels = ((await answer.json()) as { data: { lods: Level[] } }).data.lods;
    await session.page.context().addInitScript(recordFirstShown);
  });

  after(async () => {
    await session?.close();
  });

  void test('the model page draws LOD 2 first and swaps LOD 0 in, keeping the view', async () => {
    const { page, client } = session;
    assert.equal(levels[0].triangle_count, AROUND * TUBE * 2);
    assert.equal(levels[2].reduced, true, 'the torus has a LOD 2 of its own');
    // A red material bound to the torus shows the paint survives the swap.
    const json = { 'Content-Type': 'application/json' };
    const parts = (
      (await (await client.call(`/api/models/${modelId}/parts`)).json()) as {
        data: { group_id: string }[];
      }
    ).data;
    const created = await client.call('/api/v1/materials', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 }),
    });
    const material = ((await created.json()) as { data: { id: number } }).data;
    const bound = await client.call(`/api/v1/materials/${material.id}/bindings`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ group_ids: parts.map((part) => part.group_id) }),
    });
    assert.equal(bound.status, 200);

    const release = await openCoarseFirst(page, `${session.server.baseUrl}/#/models/${modelId}`, levels);
    // The switcher shows the level being opened to; the readout what is drawn meanwhile.
    assert.equal(await page.getByRole('radio', { name: /^LOD 0/ }).isChecked(), true);
    assert.match(
      (await page.locator('.triangle-count').textContent()) ?? '',
      /^LOD 2: .* shown, loading LOD 0…$/,
    );
    await page.locator('.viewer[data-paint="1"]').waitFor();
    const framed = await canvasShot(page, 'progressive-lod2');
    assert.ok(framed.red > 2_000, `LOD 2 is drawn in the bound red (${framed.red} pixels)`);
    // Zoom in and select the torus while LOD 0 is still on its way.
    const box = (await page.locator('.viewer canvas').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -400);
    await page.locator('.part-button').first().click();
    await page.locator('.viewer[data-selected="1"]').waitFor();
    const zoomed = await canvasShot(page, 'progressive-lod2-zoomed');
    const coarseTriangles = Number(await page.locator('.viewer').getAttribute('data-triangles'));
    assert.ok(
      zoomed.drawn > framed.drawn * 1.2,
      `zooming in grew the torus (${framed.drawn} → ${zoomed.drawn})`,
    );

    await release();
    await page.locator('.viewer[data-state="ready"][data-lod="0"]').waitFor({ timeout: 300_000 });
    const fine = await viewShot(page, 'progressive-lod0');
    const pixels = await decodePng(fine);
    const drawn = countPixels(pixels, (rgb) => differs(rgb, VIEW_BACKGROUND));
    assert.ok(
      Math.abs(drawn - zoomed.drawn) < zoomed.drawn * 0.1,
      `LOD 0 keeps the zoomed camera (${zoomed.drawn} → ${drawn} pixels)`,
    );
    assert.ok(countPixels(pixels, isRed) > 2_000, 'LOD 0 is drawn in the bound red');
    assert.equal(await page.locator('.viewer').getAttribute('data-selected'), '1', 'the selection is kept');
    // The view counts what it draws: more than LOD 2 drew, and all of LOD 0.
    const fineTriangles = Number(await page.locator('.viewer').getAttribute('data-triangles'));
    assert.ok(
      fineTriangles >= levels[0].triangle_count && fineTriangles > coarseTriangles * 2,
      `LOD 0 draws ${fineTriangles} triangles, LOD 2 drew ${coarseTriangles}`,
    );
    assert.equal(
      await page.getByRole('radio', { name: /^LOD 0/ }).isChecked(),
      true,
      'the switcher shows LOD 0',
    );
    assert.deepEqual(session.pageErrors, []);
  });

  void test('choosing LOD 2 while LOD 0 is on its way stays at LOD 2', async () => {
    const { page } = session;
    const release = await openCoarseFirst(page, `${session.server.baseUrl}/#/models/${modelId}`, levels);
    await page.getByRole('radio', { name: /^LOD 2/ }).check();
    await page.locator('.viewer[data-state="ready"][data-lod="2"]').waitFor({ timeout: 60_000 });
    await release();
    // LOD 0 now arrives; wait for its download and then some, and it must not replace the chosen level.
    await page.waitForFunction(
      (path) =>
        performance.getEntriesByType('resource').some((entry) => new URL(entry.name).pathname === path),
      new URL(levels[0].url, session.server.baseUrl).pathname,
      { timeout: 120_000 },
    );
    await page.waitForTimeout(2_000);
    assert.equal(await page.locator('.viewer').getAttribute('data-lod'), '2');
    assert.equal(await page.locator('.viewer').getAttribute('data-state'), 'ready');
    assert.match((await page.locator('.triangle-count').textContent()) ?? '', /^LOD 2: .* shown$/);
    assert.deepEqual(session.pageErrors, []);
  });

  for (const embed of [false, true]) {
    void test(`the share page${embed ? "'s embed" : ''} draws LOD 2 first, then LOD 0`, async () => {
      const { page, client } = session;
      const created = await client.call(`/api/models/${modelId}/shares`, { method: 'POST' });
      const link = ((await created.json()) as { data: { url: string } }).data.url;
      const base = new URL(link).pathname;
      const shared = await fetch(`${session.server.baseUrl}${base}/models`);
      const [model] = ((await shared.json()) as { data: { lods: Level[] }[] }).data;
      const release = await openCoarseFirst(page, `${link}${embed ? '?embed=1' : ''}`, model.lods);
      await release();
      await page.locator('.viewer[data-state="ready"][data-lod="0"]').waitFor({ timeout: 300_000 });
      await viewShot(page, `progressive-share${embed ? '-embed' : ''}-lod0`);
      if (!embed) assert.equal(await page.getByRole('radio', { name: /^LOD 0/ }).isChecked(), true);
      assert.deepEqual(session.pageErrors, []);
    });
  }
});
