// The model workspace in headless Chromium against a real server, at 1280×800 and 390×844, on one model of three
// unit cubes 1.5 m apart along x: a part clicked in the view opens its card inside the window while the canvas
// keeps its size, and each button of the view's toolbar, found by its name, does its job (a PNG is downloaded;
// preset views, orthographic, edges and explode change the picture; dimensions read the box in the model's unit;
// the distance between the outer cubes is their 2 m gap). A second model, of five cubes, is just above the tiling
// threshold: its LOD switcher's Streamed entry goes from tiles to a level and back. A third, an assembly of two cubes
// beside a third cube, explodes a level at a time: the assembly and the cube apart first, then the assembly's cubes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { MAX_EXPLODE } from '../../web/src/view-tools/exploded-view.ts';
import { formatLength, modelUnit } from '../../web/src/view-tools/model-lengths.ts';
import type { ModelRecord } from './support/catalog-client.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { decodePng, differs, pixelAt } from './support/pixels.ts';
import { assertRedraws, countModel, modelRuns, viewPixels } from './support/view-changes.ts';
import { openViewerSession, SHOTS, VIEW_BACKGROUND, type ViewerSession } from './support/viewer-session.ts';

const TOKEN = 'e2e-workspace-token-0123456789';
const CUBES = ['Left', 'Middle', 'Right'];
/** Three cubes in a row 1.5 m apart, the first two in an assembly, West (three, so they are not tiled). */
const ASSEMBLED_CUBES = ['W1', 'W2', 'East'];
const ASSEMBLY_OF = { W1: 'West', W2: 'West' };
/** Five cubes draw 60 triangles: above this threshold they are tiled; the three cubes' 36 are not. */
const TILES_ABOVE_TRIANGLES = '40';
/** The faces of the outer cubes (half-size 0.5, centres at -1.5 and 1.5) are this far apart, in metres. */
const OUTER_GAP = 2;
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

let session: ViewerSession;
let model: ModelRecord;
let tiled: ModelRecord;
let assembly: ModelRecord;

/** Fails unless the whole box of `locator` lies inside the window as it is now. */
async function assertInWindow(page: Page, locator: Locator, what: string): Promise<void> {
  const box = await locator.boundingBox();
  assert.ok(box, `${what} is laid out`);
  const { width, height } = page.viewportSize() ?? { width: 0, height: 0 };
  assert.ok(
    box.x >= 0 && box.y >= 0 && box.x + box.width <= width + 0.5 && box.y + box.height <= height + 0.5,
    `${what} spans x ${box.x.toFixed(0)}–${(box.x + box.width).toFixed(0)}, y ${box.y.toFixed(0)}–` +
      `${(box.y + box.height).toFixed(0)} in a ${width}×${height} window`,
  );
}

/** Where the canvas lies on the page (not in the window: a phone scrolls to its tabs) and its size. */
async function canvasPlace(page: Page): Promise<{ x: number; y: number; width: number; height: number }> {
  const box = await page.locator('.viewer canvas').boundingBox();
  assert.ok(box, 'the canvas is laid out');
  const scrollY = await page.evaluate(() => window.scrollY);
  return { ...box, y: box.y + scrollY };
}

/** Opens the model (`which`, else the three cubes) at `size` and waits for its first drawn frame. */
async function openModel(size: { width: number; height: number }, which = model): Promise<Page> {
  const { page } = session;
  await page.setViewportSize(size);
  // Through the catalog: the same address again would keep the page, its selection and its tab.
  await page.goto(`${session.server.baseUrl}/#/`);
  await page.goto(`${session.server.baseUrl}/#/models/${which.id}`);
  await page.locator('.viewer[data-state="ready"] canvas').waitFor({ timeout: 60_000 });
  await page.locator('.sidebar-tabs').waitFor();
  await page.waitForTimeout(300);
  return page;
}

/** Saves the window into SHOTS as `workspace-<name>-<width>.png`. */
async function shoot(page: Page, name: string): Promise<void> {
  if (SHOTS)
    await page.screenshot({ path: join(SHOTS, `workspace-${name}-${page.viewportSize()?.width}.png`) });
}

void describe('the model workspace', { timeout: 5 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    session = await openViewerSession('workspace', TOKEN, {
      consoleErrors: true,
      env: { TILES_ABOVE_TRIANGLES },
    });
    const { client } = session;
    const uploaded = await client.upload({ name: 'cubes.glb', bytes: new Uint8Array(await cubesGlb(CUBES)) });
    const five = ['One', 'Two', 'Three', 'Four', 'Five'];
    const uploadedTiled = await client.upload({
      name: 'row.glb',
      bytes: new Uint8Array(await cubesGlb(five)),
    });
    const uploadedAssembly = await client.upload({
      name: 'assembly.glb',
      bytes: new Uint8Array(await cubesGlb(ASSEMBLED_CUBES, ASSEMBLY_OF)),
    });
    model = await client.waitCompleted(uploaded.id);
    tiled = await client.waitCompleted(uploadedTiled.id);
    assembly = await client.waitCompleted(uploadedAssembly.id);
    const tilesets = [model, tiled].map((entry) => (entry as { tileset_url?: string | null }).tileset_url);
    assert.deepEqual(
      tilesets.map((url) => Boolean(url)),
      [false, true],
      'three cubes are drawn as levels, five as tiles',
    );
  });

  after(() => session?.close());

  void test('lengths read in the model’s unit: declared, else stated, else metres', () => {
    assert.equal(modelUnit({ unit: 'mm', source_unit: 'in' }), 'mm');
    assert.equal(modelUnit({ unit: null, source_unit: 'in' }), 'in');
    assert.equal(modelUnit({ unit: null, source_unit: 'unknown' }), 'm');
    assert.equal(formatLength(4, 'm'), '4 m');
    assert.equal(formatLength(0.0254, 'mm'), '25.4 mm');
    assert.equal(formatLength(1.2345678, 'cm'), '123.46 cm');
  });

  for (const size of SIZES) {
    void test(`${size.width}×${size.height}: a part clicked in the view opens its card in the window; the view keeps its size`, async () => {
      const page = await openModel(size);
      const canvas = page.locator('.viewer canvas');
      const card = page.locator('.part-card');
      assert.equal(await card.isVisible(), false, 'no card before a pick');
      const before = await canvasPlace(page);
      await shoot(page, 'open');
      // The middle cube sits at the view's centre.
      await canvas.click({ position: { x: before.width / 2, y: before.height / 2 } });
      await page.locator('.viewer[data-selected="1"]').waitFor();
      await card.locator('.part-card-title', { hasText: 'Middle' }).waitFor();
      await card.locator('.part-properties p').first().waitFor();
      await assertInWindow(page, card, 'the part card');
      assert.deepEqual(await canvasPlace(page), before, 'the canvas kept its place and size');
      await shoot(page, 'selected');
      // Closing the card leaves the view as it was too.
      await page.getByRole('button', { name: 'Close the part card' }).click();
      assert.equal(await card.isVisible(), false);
      assert.deepEqual(await canvasPlace(page), before);
      // Every panel tab keeps the view where it is.
      for (const tab of await page.getByRole('tab').all()) {
        if (!(await tab.isVisible())) continue;
        await tab.click();
        assert.equal(await tab.getAttribute('aria-selected'), 'true');
        assert.deepEqual(
          await canvasPlace(page),
          before,
          `the canvas after the ${await tab.textContent()} tab`,
        );
      }
      assert.deepEqual(session.pageErrors, []);
    });
  }

  void test('1280×800: each button of the toolbar does its job', async () => {
    const page = await openModel({ width: 1280, height: 800 });
    const toolbar = page.getByRole('toolbar', { name: 'View', exact: true });
    const button = (name: string) => toolbar.getByRole('button', { name, exact: true });

    const downloading = page.waitForEvent('download');
    await button('Screenshot').click();
    const download = await downloading;
    assert.match(download.suggestedFilename(), /^cubes\.png$/);
    const png = await readFile((await download.path())!);
    const meta = await sharp(png).metadata();
    const box = (await page.locator('.viewer canvas').boundingBox())!;
    assert.equal(meta.format, 'png');
    assert.ok(meta.width! >= box.width && meta.height! >= box.height, `${meta.width}×${meta.height} PNG`);
    const shot = await decodePng(png);
    assert.ok(
      differs(pixelAt(shot, shot.width >> 1, shot.height >> 1), VIEW_BACKGROUND),
      'it shows the model',
    );

    for (const name of ['Top', 'Right', 'Front', 'Iso'])
      await assertRedraws(page, button(name), `the ${name} view`);
    await assertRedraws(page, button('Orthographic'), 'orthographic projection');
    assert.equal(await button('Orthographic').getAttribute('aria-pressed'), 'true');
    await shoot(page, 'orthographic');
    await assertRedraws(page, button('Orthographic'), 'back to perspective');
    await assertRedraws(page, button('Edges'), 'the edges');
    await shoot(page, 'edges');
    const explode = toolbar.getByRole('slider', { name: 'Explode' });
    await assertRedraws(page, explode, 'exploding', () => explode.fill('1'));
    await shoot(page, 'exploded');
    await assertRedraws(page, explode, 'assembling again', () => explode.fill('0'));

    await button('Dimensions').click();
    const dimensions = page.locator('.model-dimensions');
    assert.equal(await dimensions.getAttribute('data-unit'), 'm');
    const lengths = ((await dimensions.textContent()) ?? '').split(' × ');
    assert.equal(lengths.length, 3);
    const [x, y, z] = lengths.map((length) => {
      assert.match(length, /^[\d.]+ m$/);
      return parseFloat(length);
    });
    for (const [got, want] of [
      [x, 4],
      [y, 1],
      [z, 1],
    ] as const)
      assert.ok(Math.abs(got! - want) < 0.01 * want, `${lengths.join(' × ')} is 4 × 1 × 1`);
    await button('Dimensions').click();
    assert.equal(await dimensions.count(), 0, 'the readout goes with the toggle');

    // Looking from the front, the three cubes are three runs along the middle row.
    await button('Front').click();
    const runs = modelRuns(await viewPixels(page));
    assert.equal(runs.length, 3, `three cubes in a row (${runs.join(', ')})`);
    const canvas = page.locator('.viewer canvas');
    const height = (await canvas.boundingBox())!.height;
    await button('Distance').click();
    await canvas.click({ position: { x: runs[0]!, y: height / 2 } });
    await canvas.click({ position: { x: runs[2]!, y: height / 2 } });
    const distance = Number(await button('Distance').getAttribute('data-distance'));
    assert.ok(Math.abs(distance - OUTER_GAP) < OUTER_GAP * 0.01, `${distance} m between the outer cubes`);
    await page.locator('.view-readout', { hasText: 'between Left and Right' }).waitFor();
    await shoot(page, 'distance');
    await button('Distance').click();
    await assertRedraws(page, button('Iso'), 'the isometric view');
    // The workspace as a person works in it: a part picked in the view, its card beside the parts, edges and
    // dimensions on (the picture of the README).
    await page.getByRole('tab', { name: 'Parts' }).click();
    await canvas.click({ position: { x: (await canvas.boundingBox())!.width / 2, y: height / 2 } });
    await page.locator('.part-card:not([hidden])').waitFor();
    await button('Dimensions').click();
    await shoot(page, 'tour');
    await button('Dimensions').click();

    await button('Fullscreen').click();
    await page.waitForFunction(() => document.fullscreenElement?.classList.contains('view-stage'));
    await button('Fullscreen').click();
    await page.waitForFunction(() => document.fullscreenElement === null);

    // A double click on a part frames it: the middle cube grows to fill much of the view.
    const framed = (await viewPixels(page)).width;
    const whole = countModel(await viewPixels(page));
    const middle = (await canvas.boundingBox())!;
    await canvas.dblclick({ position: { x: middle.width / 2, y: middle.height / 2 } });
    const focused = countModel(await viewPixels(page));
    assert.ok(
      focused > whole * 1.5,
      `the focused part fills more of the ${framed}-px view (${focused} > ${whole})`,
    );
    assert.deepEqual(session.pageErrors, []);
  });

  void test('1280×800: Explode opens an assembly a level at a time, and 0 puts it back', async () => {
    const page = await openModel({ width: 1280, height: 800 }, assembly);
    const toolbar = page.getByRole('toolbar', { name: 'View', exact: true });
    const explode = toolbar.getByRole('slider', { name: 'Explode' });
    await toolbar.getByRole('button', { name: 'Front', exact: true }).click();
    // Back off, so the cubes stay in the view when they are furthest apart (2.5 times as far out).
    const canvas = page.locator('.viewer canvas');
    await canvas.hover();
    await page.mouse.wheel(0, 500);
    const runsAt = async (value: number): Promise<number[]> => {
      await explode.fill(String(value));
      const runs = modelRuns(await viewPixels(page));
      assert.equal(runs.length, 3, `three cubes in a row at ${value} (${runs.join(', ')})`);
      return runs;
    };
    // Within West (W1 to W2) and between West and East (W2 to East), in pixels.
    const within = (runs: number[]) => runs[1]! - runs[0]!;
    const between = (runs: number[]) => runs[2]! - runs[1]!;
    const assembled = await runsAt(0);
    await shoot(page, 'assembly');
    const half = await runsAt(MAX_EXPLODE / 2);
    await shoot(page, 'assembly-half-exploded');
    assert.ok(
      between(half) > 2 * between(assembled),
      `West and East part (${between(assembled)} → ${between(half)} px)`,
    );
    assert.ok(
      Math.abs(within(half) - within(assembled)) <= Math.max(3, 0.05 * within(assembled)),
      `West’s cubes stay together (${within(assembled)} → ${within(half)} px)`,
    );
    const full = await runsAt(MAX_EXPLODE);
    await shoot(page, 'assembly-exploded');
    assert.ok(
      within(full) > 1.5 * within(assembled),
      `then the cubes part (${within(assembled)} → ${within(full)} px)`,
    );
    assert.deepEqual(await runsAt(0), assembled, 'every cube back in its place');
    assert.deepEqual(session.pageErrors, []);
  });

  void test('1280×800: a tiled model’s Streamed entry is checked; a level is chosen, and Streamed brings tiles back', async () => {
    const page = await openModel({ width: 1280, height: 800 }, tiled);
    const streamed = page.getByRole('radio', { name: /^Streamed/ });
    assert.equal(await page.locator('.viewer').getAttribute('data-lod'), 'tiles');
    assert.equal(await streamed.isChecked(), true);
    await page.getByRole('radio', { name: /^LOD 0/ }).check();
    await page.locator('.viewer[data-lod="0"][data-state="ready"]').waitFor();
    assert.equal(await streamed.isChecked(), false);
    await streamed.check();
    await page.locator('.viewer[data-lod="tiles"][data-state="ready"]').waitFor();
    // Once the tiles are in, the entry no longer says they are on their way.
    await page.locator('.lod-streamed:not(.streaming)').waitFor();
    assert.equal(await page.locator('.lod-streamed .streaming-state').textContent(), 'tiles as needed');
    assert.ok(countModel(await viewPixels(page)) > 500, 'the tiles are drawn again');
    await shoot(page, 'streamed');
    assert.deepEqual(session.pageErrors, []);
  });
});
