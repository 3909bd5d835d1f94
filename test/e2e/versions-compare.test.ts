// Versions and compare mode end to end: real server, real headless Chromium. The FZK house is uploaded; a second
// version, the same file with one upper-floor wall's IfcLocalPlacement point moved 2 m outwards, is sent from
// the Versions card and becomes current; comparing v1 with v2 paints the moved wall amber and everything else dim,
// with nothing green (added) or red (removed), counted in a screenshot; clicking the wall says it moved; the parts
// tree filters by change; v1 opens by its own levels; restoring v1 makes it current; v2 is deleted; an OBJ with
// its MTL, chosen together in the card, is version 3 with the MTL's material.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { boxesObj } from '../helpers/box-obj.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { countPixels, decodePng, differs, type Pixels } from './support/pixels.ts';
import {
  openViewerSession,
  REPO,
  VIEW_BACKGROUND,
  viewShot,
  type ViewerSession,
} from './support/viewer-session.ts';

const TOKEN = 'e2e-versions-token-0123456789';
const HOUSE = join(REPO, 'test/fixtures/models/ifc/AC14-FZK-Haus.ifc');
/**
 * The wall moved in version 2: the upper floor's front knee wall, which has no openings (so moving it changes no
 * hole in it) and whose placement nothing else is placed relative to.
 */
const WALL = 'Wand-Ext-OG-4';
/** Its placement's point, on the house's front edge (y = 0); version 2 has it 2 m further out, before the roof. */
const WALL_POINT = '#211345= IFCCARTESIANPOINT((12.,0.,0.));';
const MOVED_POINT = '#211345= IFCCARTESIANPOINT((12.,-2.,0.));';

let session: ViewerSession;
let page: Page;
const run: { modelId?: string } = {};

type Rgb = [number, number, number];

/** Hue (0–360°), saturation (0–1) and value (0–255) of a pixel. */
function hsv([r, g, b]: Rgb): { hue: number; saturation: number; value: number } {
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const chroma = max - min;
  let hue = 0;
  if (chroma > 0) {
    if (max === r) hue = (((g - b) / chroma) % 6) * 60;
    else if (max === g) hue = ((b - r) / chroma + 2) * 60;
    else hue = ((r - g) / chroma + 4) * 60;
  }
  return { hue: (hue + 360) % 360, saturation: max === 0 ? 0 : chroma / max, value: max };
}

/** The compare colours as they reach the screen (lit and tone-mapped), told apart by hue. */
const isAmber = (rgb: Rgb): boolean => {
  const { hue, saturation, value } = hsv(rgb);
  return hue >= 18 && hue <= 50 && saturation > 0.55 && value > 90;
};
const isAddedGreen = (rgb: Rgb): boolean => {
  const { hue, saturation, value } = hsv(rgb);
  return hue >= 90 && hue <= 170 && saturation > 0.4 && value > 60;
};
const isRemovedRed = (rgb: Rgb): boolean => {
  const { hue, saturation, value } = hsv(rgb);
  return (hue <= 12 || hue >= 345) && saturation > 0.45 && value > 60;
};
/** A dimmed part: grey, not the background. */
const isDim = (rgb: Rgb): boolean =>
  hsv(rgb).saturation < 0.25 && differs(rgb, VIEW_BACKGROUND, 10) && !isAmber(rgb);

/** Counts of each compare colour in a screenshot of the view. */
function colourCounts(pixels: Pixels): Record<'amber' | 'green' | 'red' | 'dim', number> {
  return {
    amber: countPixels(pixels, isAmber),
    green: countPixels(pixels, isAddedGreen),
    red: countPixels(pixels, isRemovedRed),
    dim: countPixels(pixels, isDim),
  };
}

/** The middle of the amber pixels, where the moved wall is drawn. */
function amberCentre(pixels: Pixels): { x: number; y: number } {
  let sumX = 0;
  let sumY = 0;
  const count = countPixels(pixels, (rgb, x, y) => {
    if (!isAmber(rgb)) return false;
    sumX += x;
    sumY += y;
    return true;
  });
  return { x: Math.round(sumX / count), y: Math.round(sumY / count) };
}

/** The versions the API lists, newest first. */
async function versions(): Promise<
  { number: number; current: boolean; status: string; diff_counts: unknown }[]
> {
  const answer = await session.client.call(`/api/models/${run.modelId}/versions`);
  assert.equal(answer.status, 200, await answer.clone().text());
  return (
    (await answer.json()) as {
      data: { number: number; current: boolean; status: string; diff_counts: unknown }[];
    }
  ).data;
}

/** The part buttons the tree shows now (not filtered out), by name. */
async function shownParts(): Promise<string[]> {
  return page
    .locator('.parts-tree li:not([hidden]) > .part-button')
    .evaluateAll((buttons) =>
      buttons
        .filter((button) => button.closest('[hidden]') === null)
        .map((button) => button.querySelector('.part-name')?.textContent ?? ''),
    );
}

void describe(
  'versions and compare mode end to end',
  { timeout: 15 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      session = await openViewerSession('versions', TOKEN);
      page = session.page;
      const model = await session.client.upload(HOUSE, { name: 'FZK house' });
      await session.client.waitCompleted(model.id);
      run.modelId = model.id;
    });

    after(async () => {
      await session?.close();
    });

    void test('a second version sent from the Versions card converts and becomes current', async () => {
      await page.goto(`${session.server.baseUrl}/#/models/${run.modelId}`);
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 180_000 });
      // The Versions card is a tab beside the view; the page keeps it open when it is built afresh.
      await page.getByRole('tab', { name: 'Versions' }).click();
      await page.locator('.version-row[data-number="1"][data-current="true"]').waitFor();
      const text = await readFile(HOUSE, 'latin1');
      assert.ok(text.includes(WALL_POINT), 'the wall placement point is in the file');
      const moved = text.replace(WALL_POINT, MOVED_POINT);
      await page.locator('.version-file').setInputFiles({
        name: 'AC14-FZK-Haus.ifc',
        mimeType: 'application/octet-stream',
        buffer: Buffer.from(moved, 'latin1'),
      });
      await page.getByRole('button', { name: 'Upload new version' }).click();
      // Converting, then current: the page opens the model afresh with version 2.
      await page
        .locator('.version-row[data-number="2"][data-current="true"][data-status="completed"]')
        .waitFor({ timeout: 300_000 });
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 180_000 });
      const listed = await versions();
      assert.deepEqual(
        listed.map(({ number, current, status }) => ({ number, current, status })),
        [
          { number: 2, current: true, status: 'completed' },
          { number: 1, current: false, status: 'completed' },
        ],
      );
      const counts = listed[0].diff_counts as { added: number; removed: number; changed: number } | null;
      assert.deepEqual(
        counts && { added: counts.added, removed: counts.removed, changed: counts.changed },
        { added: 0, removed: 0, changed: 1 },
        'version 2 changed one part against version 1',
      );
      assert.match(
        await page.locator('.version-row[data-number="2"] .version-diff').innerText(),
        /vs v1: 1 changed/,
      );
    });

    void test('comparing v1 with v2 paints the moved wall amber, the rest dim, nothing added or removed', async () => {
      await page.locator('.compare-from').selectOption('1');
      await page.locator('.compare-to').selectOption('2');
      await page.getByRole('button', { name: 'Compare', exact: true }).click();
      await page.locator('.viewer[data-compare="1-2"][data-state="ready"]').waitFor({ timeout: 180_000 });
      assert.equal(
        await page.locator('.compare-legend li[data-state="changed"]').getAttribute('data-count'),
        '1',
      );
      assert.equal(await page.locator('.viewer').getAttribute('data-ghosts'), '0');
      const pixels = await decodePng(await viewShot(page, 'versions-compare'));
      const counts = colourCounts(pixels);
      const total = pixels.width * pixels.height;
      assert.ok(counts.amber > 400, `the moved wall is drawn amber: ${JSON.stringify(counts)}`);
      assert.ok(
        counts.dim > counts.amber,
        `the unchanged house is drawn dim around it: ${JSON.stringify(counts)}`,
      );
      assert.ok(counts.green < total * 0.0005, `nothing green (added): ${JSON.stringify(counts)}`);
      assert.ok(counts.red < total * 0.0005, `nothing red (removed): ${JSON.stringify(counts)}`);

      // Clicking the wall says what changed about it: its placement.
      await page.locator('.viewer canvas').click({ position: amberCentre(pixels) });
      const readout = page.locator('.compare-readout');
      await page.locator('.compare-readout[data-state]').waitFor();
      assert.equal(await readout.getAttribute('data-state'), 'changed');
      assert.equal(await readout.getAttribute('data-what'), 'transform');
      assert.equal(await readout.innerText(), `${WALL}: changed: transform`);
      await page.keyboard.press('Escape');
    });

    void test('the parts tree filters by change', async () => {
      // The tree is in the Parts tab; the Versions tab was open for the compare.
      await page.getByRole('tab', { name: 'Parts' }).click();
      const every = await shownParts();
      await page.locator('.change-filter').selectOption('changed');
      assert.deepEqual(await shownParts(), [WALL]);
      await page.locator('.change-filter').selectOption('added');
      assert.deepEqual(await shownParts(), []);
      await page.locator('.change-filter').selectOption('unchanged');
      // The tree keeps only the rows near its visible area in the page; its count line tells how many it lists.
      const counted = /^([\d,]+) of ([\d,]+) parts$/.exec(await page.locator('.part-matches').innerText());
      assert.ok(counted, 'the tree counts the parts it lists');
      const [kept, total] = counted.slice(1).map((n) => Number(n.replaceAll(',', '')));
      assert.equal(kept, total! - 1, 'every part but the wall is unchanged');
      assert.ok(!(await shownParts()).includes(WALL));
      await page.locator('.change-filter').selectOption('');
      assert.equal(await page.locator('.part-matches').innerText(), '', 'no filter: every part is listed');
      assert.equal((await shownParts())[0], every[0], 'the tree starts where it started');
      await page.getByRole('tab', { name: 'Versions' }).click();
    });

    void test('v1 opens by its own levels; stopping the comparison brings the current version back', async () => {
      await page.getByRole('button', { name: 'Stop comparing' }).click();
      await page.waitForFunction(
        () => document.querySelector('.viewer')?.hasAttribute('data-compare') === false,
      );
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 180_000 });
      assert.equal(await page.locator('.viewer').getAttribute('data-version'), null, 'the current version');
      assert.equal(await page.locator('.part-button[data-change]').count(), 0, 'the tree is unmarked');
      await viewShot(page, 'versions-current');
      await page.locator('.version-row[data-number="1"] .version-open').click();
      await page.locator('.viewer[data-version="1"][data-state="ready"]').waitFor({ timeout: 180_000 });
      assert.match(await page.locator('.triangle-count').innerText(), /^Version 1 · LOD 0/);
      // The LOD switcher offers v1's levels while v1 is open: choosing one draws v1's, not the current version's.
      const radios = page.locator('.lod-switcher input[type="radio"]');
      const coarsest = Number(await radios.last().getAttribute('value'));
      await radios.last().click();
      await page.waitForFunction(
        (level) =>
          document.querySelector('.triangle-count')?.textContent?.startsWith(`Version 1 · LOD ${level}:`),
        coarsest,
        { timeout: 60_000 },
      );
      assert.equal(await page.locator('.viewer').getAttribute('data-version'), '1');
      await radios.first().click();
      await page.waitForFunction(
        () => document.querySelector('.triangle-count')?.textContent?.startsWith('Version 1 · LOD 0:'),
        undefined,
        { timeout: 60_000 },
      );
    });

    void test('restoring v1 makes it current; v2 can then be deleted', async () => {
      await page.locator('.version-row[data-number="1"] .version-restore').click();
      await page.locator('.version-row[data-number="1"][data-current="true"]').waitFor({ timeout: 120_000 });
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 180_000 });
      page.once('dialog', (dialog) => void dialog.accept());
      await page.locator('.version-row[data-number="2"] .version-delete').click();
      await page.locator('.version-row[data-number="2"]').waitFor({ state: 'detached' });
      assert.deepEqual(
        (await versions()).map(({ number, current }) => ({ number, current })),
        [{ number: 1, current: true }],
      );
      assert.deepEqual(session.pageErrors, []);
    });

    void test('a version of several files (an OBJ with its MTL) dropped on the view keeps its material', async () => {
      const box = boxesObj([{ name: 'Crate', at: [0, 0, 0], size: [1, 1, 1] }]);
      const obj = `mtllib paint.mtl\n${box.replace('o Crate\n', 'o Crate\nusemtl CratePaint\n')}`;
      const mtl = 'newmtl CratePaint\nKd 0.9 0.2 0.1\n';
      // Dropped on the view while another tab is open: the Versions card comes forward with the upload.
      await page.getByRole('tab', { name: 'Parts' }).click();
      const taken = await page.locator('.view-frame').evaluate(
        (frame, files) => {
          const transfer = new DataTransfer();
          for (const file of files)
            transfer.items.add(new File([file.text], file.name, { type: 'text/plain' }));
          const init = { dataTransfer: transfer, bubbles: true, cancelable: true };
          const offered = !frame.dispatchEvent(new DragEvent('dragover', init));
          frame.dispatchEvent(new DragEvent('drop', init));
          return offered;
        },
        [
          { name: 'crate.obj', text: obj },
          { name: 'paint.mtl', text: mtl },
        ],
      );
      assert.ok(taken, 'the view offers to take dragged files');
      assert.equal(await page.getByRole('tab', { name: 'Versions' }).getAttribute('aria-selected'), 'true');
      await page
        .locator('.version-row[data-number="3"][data-current="true"][data-status="completed"]')
        .waitFor({ timeout: 300_000 });
      await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 180_000 });
      const answer = await session.client.call(`/api/models/${run.modelId}/versions/3`);
      const version = (
        (await answer.json()) as { data: { original_filename: string; lods: { url: string }[] } }
      ).data;
      assert.equal(version.original_filename, 'crate.obj');
      // The MTL went with the OBJ: its material, by name and colour, is in the version's finest level.
      const level = new URL(version.lods[0].url, session.server.baseUrl);
      const glb = Buffer.from(await (await session.client.call(level.pathname + level.search)).arrayBuffer());
      const json = JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8')) as {
        materials?: { name?: string; pbrMetallicRoughness?: { baseColorFactor?: number[] } }[];
      };
      const paint = json.materials?.find((material) => material.name === 'CratePaint');
      assert.ok(paint, `the MTL's material: ${JSON.stringify(json.materials)}`);
      assert.ok((paint.pbrMetallicRoughness?.baseColorFactor?.[0] ?? 0) > 0.5, 'its red diffuse colour');
      await viewShot(page, 'versions-obj-with-mtl');
      assert.deepEqual(session.pageErrors, []);
    });
  },
);
