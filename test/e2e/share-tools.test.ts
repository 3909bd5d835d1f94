// The share page's view tools in headless Chromium at 1280×800, against a real server, on a link to three unit cubes
// 1.5 m apart along x: each tool of the view's toolbar, found by its name, does its job (a PNG is downloaded; the
// preset views and orthographic projection change the picture; the distance between the outer cubes is their 2 m
// gap), a part picked in the view is isolated, a section plane cuts the model, and the page offers no control that
// edits. The embed, in a 640×480 frame, carries the same toolbar, with the selection's tools and a Section panel:
// a part picked there is isolated and framed, and the panel's planes cut the model. A second model, of five cubes, is just above the
// tiling threshold: its catalog card says it is streamed, and so do its details.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import type { ModelRecord } from './support/catalog-client.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { decodePng, differs, pixelAt } from './support/pixels.ts';
import { assertRedraws, countModel, modelRuns, viewPixels } from './support/view-changes.ts';
import { openViewerSession, SHOTS, VIEW_BACKGROUND, type ViewerSession } from './support/viewer-session.ts';

const TOKEN = 'e2e-share-tools-token-0123456789';
/** Five cubes draw 60 triangles: above this threshold they are tiled; the three cubes' 36 are not. */
const TILES_ABOVE_TRIANGLES = '40';
/** The faces of the outer cubes (half-size 0.5, centres at -1.5 and 1.5) are this far apart, in metres. */
const OUTER_GAP = 2;
/** Names of controls that would change the model, its materials or its catalog: none belongs on a share page. */
const EDIT_CONTROL =
  /bind|unbind|annotat|comment|delete|remove model|upload|paint|material|rename|save|revoke|create link|regenerate|restore/i;

let session: ViewerSession;
let cubes: ModelRecord;
let tiled: ModelRecord;
let shareUrl: string;

/** Opens the share page (`?embed=1` when `embed`) at `size` and waits for its first drawn frame. */
async function openShare(embed = false, size = { width: 1280, height: 800 }): Promise<Page> {
  const { page } = session;
  await page.setViewportSize(size);
  await page.goto(embed ? `${shareUrl}?embed=1` : shareUrl);
  await page.locator('.viewer[data-state="ready"] canvas').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(300);
  return page;
}

/** Saves the window into SHOTS as `share-tools-<name>.png`. */
async function shoot(page: Page, name: string): Promise<void> {
  if (SHOTS) await page.screenshot({ path: join(SHOTS, `share-tools-${name}.png`) });
}

void describe('the share page’s view tools', { timeout: 5 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    session = await openViewerSession('share-tools', TOKEN, {
      consoleErrors: true,
      env: { TILES_ABOVE_TRIANGLES },
    });
    const { client } = session;
    const three = await client.upload({
      name: 'cubes.glb',
      bytes: new Uint8Array(await cubesGlb(['Left', 'Middle', 'Right'])),
    });
    const five = await client.upload({
      name: 'row.glb',
      bytes: new Uint8Array(await cubesGlb(['One', 'Two', 'Three', 'Four', 'Five'])),
    });
    cubes = await client.waitCompleted(three.id);
    tiled = await client.waitCompleted(five.id);
    const created = await client.call(`/api/models/${cubes.id}/shares`, { method: 'POST' });
    assert.equal(created.status, 201, await created.clone().text());
    shareUrl = ((await created.json()) as { data: { url: string } }).data.url;
  });

  after(() => session?.close());

  void test('1280×800: each tool of the share page’s toolbar does its job', async () => {
    const page = await openShare();
    const toolbar = page.getByRole('toolbar', { name: 'View', exact: true });
    const button = (name: string) => toolbar.getByRole('button', { name, exact: true });
    await shoot(page, 'open');

    const downloading = page.waitForEvent('download');
    await button('Screenshot').click();
    const download = await downloading;
    assert.equal(download.suggestedFilename(), 'cubes.png');
    const png = await readFile((await download.path())!);
    assert.equal((await sharp(png).metadata()).format, 'png');
    const shot = await decodePng(png);
    assert.ok(
      differs(pixelAt(shot, shot.width >> 1, shot.height >> 1), VIEW_BACKGROUND),
      'it shows the model',
    );

    for (const name of ['Top', 'Right', 'Front', 'Iso'])
      await assertRedraws(page, button(name), `the ${name} view`);
    await assertRedraws(page, button('Orthographic'), 'orthographic projection');
    assert.equal(await button('Orthographic').getAttribute('aria-pressed'), 'true');
    await assertRedraws(page, button('Orthographic'), 'back to perspective');
    await assertRedraws(page, button('Edges'), 'the edges');
    await button('Edges').click();

    // Looking from the front, the three cubes are three runs along the middle row.
    await button('Front').click();
    const runs = modelRuns(await viewPixels(page));
    assert.equal(runs.length, 3, `three cubes in a row (${runs.join(', ')})`);
    const canvas = page.locator('.viewer canvas');
    const { height } = (await canvas.boundingBox())!;
    await button('Distance').click();
    await canvas.click({ position: { x: runs[0]!, y: height / 2 } });
    await canvas.click({ position: { x: runs[2]!, y: height / 2 } });
    const distance = Number(await button('Distance').getAttribute('data-distance'));
    assert.ok(Math.abs(distance - OUTER_GAP) < OUTER_GAP * 0.01, `${distance} m between the outer cubes`);
    await page.locator('.view-readout', { hasText: 'between Left and Right' }).waitFor();
    await shoot(page, 'distance');
    await button('Distance').click();

    // Angle takes the view's clicks as points (its arithmetic is the workspace suite's to check).
    await button('Angle').click();
    assert.equal(await button('Angle').getAttribute('aria-pressed'), 'true');
    await page.locator('.view-readout', { hasText: 'Angle: click three points' }).waitFor();
    await button('Angle').click();

    await button('Fullscreen').click();
    await page.waitForFunction(() => document.fullscreenElement?.classList.contains('view-stage'));
    await button('Fullscreen').click();
    await page.waitForFunction(() => document.fullscreenElement === null);
    assert.deepEqual(session.pageErrors, []);
  });

  void test('1280×800: a part picked in the view is isolated; a section plane cuts the model', async () => {
    const page = await openShare();
    const canvas = page.locator('.viewer canvas');
    const isolate = page.getByRole('button', { name: 'Isolate', exact: true });
    assert.equal(await isolate.isDisabled(), true, 'nothing to isolate before a pick');
    const whole = countModel(await viewPixels(page));
    const { width, height } = (await canvas.boundingBox())!;
    // The middle cube sits at the view's centre.
    await canvas.click({ position: { x: width / 2, y: height / 2 } });
    await page.locator('.part-button[aria-pressed="true"]', { hasText: 'Middle' }).waitFor();
    await assertRedraws(page, isolate, 'isolating the middle cube');
    await page.locator('.viewer[data-hidden="2"]').waitFor();
    await shoot(page, 'isolated');
    // One cube is left, framed: at most one run of model pixels along the middle row (none when it fills it).
    const runs = modelRuns(await viewPixels(page));
    assert.ok(runs.length <= 1, `one cube is left (${runs.join(', ')})`);
    await page.getByRole('button', { name: 'Show all', exact: true }).click();
    await page.locator('.viewer[data-hidden="0"]').waitFor();
    assert.ok(Math.abs(countModel(await viewPixels(page)) - whole) < whole * 0.05, 'the whole model again');
    await page.keyboard.press('Escape');

    const cutX = page.getByRole('checkbox', { name: 'Cut X' });
    await assertRedraws(page, cutX, 'the X section', () => cutX.check());
    await shoot(page, 'section');
    await cutX.uncheck();
    assert.deepEqual(session.pageErrors, []);
  });

  void test('640×480 embedded: a part picked in the view is isolated and framed; the Section panel cuts the model', async () => {
    const page = await openShare(true, { width: 640, height: 480 });
    const toolbar = page.getByRole('toolbar', { name: 'View', exact: true });
    const button = (name: string) => toolbar.getByRole('button', { name, exact: true });
    const canvas = page.locator('.viewer canvas');
    const place = await canvas.boundingBox();
    assert.equal(await button('Isolate').isDisabled(), true, 'nothing to isolate before a pick');
    const whole = countModel(await viewPixels(page));
    // The middle cube sits at the view's centre.
    await canvas.click({ position: { x: place!.width / 2, y: place!.height / 2 } });
    await page.locator('.viewer[data-selected="1"]').waitFor();
    await page.locator('.view-readout', { hasText: 'Selected: Middle' }).waitFor();
    await shoot(page, 'embed-selected');
    await assertRedraws(page, button('Isolate'), 'isolating the middle cube');
    await page.locator('.viewer[data-hidden="2"]').waitFor();
    await shoot(page, 'embed-isolated');
    // Framed: the one cube left covers more of the view than the three did (hidden alone, it would cover a third).
    const isolated = countModel(await viewPixels(page));
    assert.ok(isolated > whole, `the isolated cube fills the view (${isolated} > ${whole} pixels)`);
    await button('Show all').click();
    await page.locator('.viewer[data-hidden="0"]').waitFor();
    assert.ok(Math.abs(countModel(await viewPixels(page)) - whole) < whole * 0.05, 'the whole model again');
    await page.keyboard.press('Escape');
    await page.locator('.viewer[data-selected="0"]').waitFor();
    assert.equal(await page.locator('.view-readout .selection-line').textContent(), '');

    const cutX = page.getByRole('checkbox', { name: 'Cut X' });
    assert.equal(await cutX.isVisible(), false, 'the planes wait behind the Section button');
    await button('Section').click();
    assert.equal(await button('Section').getAttribute('aria-pressed'), 'true');
    await assertRedraws(page, cutX, 'the X section', () => cutX.check());
    await shoot(page, 'embed-section');
    // The panel floats over the view: the canvas keeps its place and size.
    assert.deepEqual(await canvas.boundingBox(), place);
    await cutX.uncheck();
    await button('Section').click();
    assert.equal(await cutX.isVisible(), false);
    assert.deepEqual(session.pageErrors, []);
  });

  void test('1280×800, and 640×480 embedded: the share page and its embed offer no control that edits', async () => {
    for (const embed of [false, true]) {
      // An embed is often a small frame: 640×480, where the phone's layout rules apply.
      const page = await openShare(embed, embed ? { width: 640, height: 480 } : undefined);
      const where = embed ? 'the embed' : 'the share page';
      assert.equal(
        await page.locator('input[type="file"], textarea, [contenteditable="true"]').count(),
        0,
        where,
      );
      // Inputs only choose what is shown: the parts' search, section switches and sliders, the explode slider, levels.
      const writable = page.locator(
        'input:not([type="search"]):not([type="checkbox"]):not([type="range"]):not([type="radio"])',
      );
      assert.equal(await writable.count(), 0, `${where} has no field to write into`);
      const names = await page
        .getByRole('button')
        .evaluateAll((buttons) =>
          buttons.map((button) => button.getAttribute('aria-label') ?? button.textContent ?? ''),
        );
      assert.ok(names.length > 10, `${where} has its view tools (${names.join(', ')})`);
      const editing = names.filter((name) => EDIT_CONTROL.test(name));
      assert.deepEqual(editing, [], `${where} has no edit control`);
      // The embed carries the same toolbar, and no heading.
      const toolbar = page.getByRole('toolbar', { name: 'View', exact: true });
      const tools = ['Screenshot', 'Iso', 'Orthographic', 'Distance', 'Angle', 'Fullscreen'];
      // The embed has no room around its stage: the selection's tools and the planes' button join its toolbar.
      if (embed) tools.push('Isolate', 'Hide', 'Show all', 'X-ray', 'Section');
      for (const name of tools)
        assert.equal(
          await toolbar.getByRole('button', { name, exact: true }).count(),
          1,
          `${where}: ${name}`,
        );
      if (embed) {
        assert.equal(await page.locator('h1').count(), 0, 'the embed shows the view alone');
        const canvas = (await page.locator('.viewer canvas').boundingBox())!;
        assert.ok(
          canvas.height > 400,
          `the view fills the frame under the toolbar (${canvas.height} px high)`,
        );
        await shoot(page, 'embed');
      }
    }
    assert.deepEqual(session.pageErrors, []);
  });

  void test('1280×800: the catalog card and the details of a tiled model say it is streamed', async () => {
    const { page } = session;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${session.server.baseUrl}/#/`);
    const card = (model: ModelRecord) => page.locator(`.model-card[data-model-id="${model.id}"]`);
    await card(tiled).waitFor();
    assert.equal(await card(tiled).locator('.badge.streamed').textContent(), 'Streamed');
    assert.equal(await card(cubes).locator('.badge.streamed').count(), 0, 'three cubes open whole');
    await shoot(page, 'catalog');

    await page.goto(`${session.server.baseUrl}/#/models/${tiled.id}`);
    await page.getByRole('tab', { name: 'Details' }).click();
    const delivery = page.locator('.facts dt', { hasText: 'Delivery' });
    assert.equal(
      await delivery.locator('xpath=following-sibling::dd[1]').textContent(),
      'Streamed as 3D Tiles',
    );
    await shoot(page, 'details');
    assert.deepEqual(session.pageErrors, []);
  });
});
