// The model page at 1280×800 and 390×844 in headless Chromium against a real server: a new material created and
// bound with every control in sight when used, isolate framing the part, the tools above the fold, capped
// sections and a point cloud's point count. (The Export menu's place is checked in export-menu.test.ts.)
// With VITRINE_SCREENSHOTS=1 each state is also photographed into docs/layout-<state>-<width>.png.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { pointCloudPly } from '../fixtures/point-cloud-ply.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { catalogClient, type ModelRecord } from './support/catalog-client.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { countPixels, decodePng, differs, hexToRgb, pixelAt, type Pixels } from './support/pixels.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const TRUCK = join(SAMPLE_MODELS, 'glb/CesiumMilkTruck.glb');
const TOKEN = 'e2e-layout-token-0123456789';
/** Must match VIEW_BACKGROUND in web/src/viewer/model-viewport.ts. */
const BACKGROUND = hexToRgb('#262b36');
/** Must match SECTION_CAP_COLOR in web/src/viewer/section-caps.ts. */
const CAP = hexToRgb('#d0643c');
const SCREENSHOTS = process.env.VITRINE_SCREENSHOTS === '1';
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;
/** Five cubes in a row along x; the middle one's centre is the model's centre. */
const CUBES = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'];
const POINTS = 5000;

let dataDir: string;
let server: RunningServer;
let browser: Browser | undefined;
const models: { cubes?: ModelRecord; cloud?: ModelRecord; truck?: ModelRecord } = {};

/** A page at `size` with the token stored, collecting page errors into `errors`. */
async function openPage(size: { width: number; height: number }, errors: string[]): Promise<Page> {
  assert.ok(browser);
  const context: BrowserContext = await browser.newContext({ viewport: size });
  await context.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return page;
}

/** Opens a model page and waits until its first level is drawn. */
async function openModel(page: Page, id: string): Promise<void> {
  await page.goto(`${server.baseUrl}/#/models/${id}`);
  await page.locator('.viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(300);
}

/** Fails unless the whole box of `locator` lies inside the window, as it is now (nothing is scrolled for it). */
async function assertInWindow(page: Page, locator: Locator, what: string): Promise<void> {
  const box = await locator.boundingBox();
  assert.ok(box, `${what} is laid out`);
  const { width, height } = page.viewportSize() ?? { width: 0, height: 0 };
  const inside = box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height;
  assert.ok(
    inside,
    `${what} spans x ${box.x.toFixed(0)}–${(box.x + box.width).toFixed(0)}, y ${box.y.toFixed(0)}–` +
      `${(box.y + box.height).toFixed(0)} in a ${width}×${height} window`,
  );
}

/** The 3D view's pixels, decoded. */
async function viewPixels(page: Page): Promise<Pixels> {
  return decodePng(await page.locator('.viewer canvas').screenshot());
}

/** With VITRINE_SCREENSHOTS=1: the window as it is into docs/layout-<name>-<width>.png. */
async function shoot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await page.waitForTimeout(300);
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: join(REPO, 'docs', `layout-${name}-${width}.png`) });
}

void describe('model page layout end to end', { timeout: 10 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-layout-'));
    server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
    const client = catalogClient(server.baseUrl, TOKEN);
    const cubes = await client.upload({ name: 'cubes.glb', bytes: new Uint8Array(await cubesGlb(CUBES)) });
    const cloud = await client.upload({ name: 'scan.ply', bytes: new Uint8Array(pointCloudPly(POINTS)) });
    const truck = await client.upload(TRUCK);
    browser = await launchChromium();
    models.cubes = await client.waitCompleted(cubes.id);
    models.cloud = await client.waitCompleted(cloud.id);
    models.truck = await client.waitCompleted(truck.id);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  for (const size of SIZES) {
    void test(`${size.width}×${size.height}: a new material is made and bound with each control in sight`, async () => {
      assert.ok(models.cubes);
      const errors: string[] = [];
      const page = await openPage(size, errors);
      await openModel(page, models.cubes.id);
      const bind = page.locator('.binding-box button.primary');
      assert.equal(await bind.textContent(), 'Bind: select parts, pick a material');
      assert.equal(await bind.isDisabled(), true);
      const part = page.locator('.part-button', { hasText: 'Charlie' });
      // On a phone the tools sit under the view: reaching the parts is the person's own scrolling. On a wide
      // screen nothing is scrolled at all.
      if (size.width < 900) await part.scrollIntoViewIfNeeded();
      await assertInWindow(page, part, 'the part in the tree');
      await part.click();
      assert.equal(await bind.textContent(), 'Bind 1 part: pick a material');
      const create = page.getByRole('button', { name: 'New material' });
      if (size.width < 900) await create.scrollIntoViewIfNeeded();
      await assertInWindow(page, create, 'New material');
      await create.click();
      const form = page.locator('form.material-form');
      const name = form.getByLabel('Name', { exact: true });
      await assertInWindow(page, name, 'the new material’s name field');
      await name.fill('Layout red');
      await form.getByLabel('Diffuse colour').fill('#ff0000');
      const save = form.getByRole('button', { name: 'Create material' });
      await assertInWindow(page, save, 'Create material');
      await shoot(page, 'new-material');
      await save.click();
      await page.getByRole('heading', { name: /^Material #\d+$/ }).waitFor();
      // The new material is the open one: binding needs no further pick.
      await page.getByRole('button', { name: 'Bind selected parts to “Layout red”' }).waitFor();
      assert.equal(await bind.isDisabled(), false);
      await assertInWindow(page, bind, 'the bind button after creating the material');
      await page.locator('.material-button[aria-pressed="true"]', { hasText: 'Layout red' }).waitFor();
      await bind.click();
      await page.locator('.viewer[data-paint="1"]').waitFor();
      if (size.width >= 900)
        assert.equal(await page.evaluate(() => window.scrollY), 0, 'the page never scrolled');
      await shoot(page, 'bound');
      // Clean up for the next window size: the material goes, with its binding.
      page.once('dialog', (dialog) => void dialog.accept());
      await form.getByRole('button', { name: 'Delete material' }).click();
      await page.locator('.viewer[data-paint="0"]').waitFor();
      assert.deepEqual(errors, []);
      await page.context().close();
    });

    void test(`${size.width}×${size.height}: isolate frames the isolated part`, async () => {
      assert.ok(models.cubes);
      const errors: string[] = [];
      const page = await openPage(size, errors);
      await openModel(page, models.cubes.id);
      await page.locator('.part-button', { hasText: 'Alpha' }).click();
      await page.waitForTimeout(300);
      const view = await viewPixels(page);
      const total = view.width * view.height;
      const isModel = (rgb: [number, number, number]) => differs(rgb, BACKGROUND);
      const before = countPixels(view, isModel);
      const isolate = page.getByRole('button', { name: 'Isolate' });
      // On a phone the tree is under the view: back up to the view's toolbar, as a person would.
      if (size.width < 900) await isolate.scrollIntoViewIfNeeded();
      await assertInWindow(page, isolate, 'Isolate');
      await isolate.click();
      await page.waitForTimeout(400);
      const isolated = countPixels(await viewPixels(page), isModel);
      assert.ok(
        isolated > total * 0.15,
        `the isolated cube covers ${((100 * isolated) / total).toFixed(1)} % of the view`,
      );
      assert.ok(isolated > before, `larger than the whole row of cubes was (${isolated} > ${before})`);
      await shoot(page, 'isolated');
      // Show all brings the whole model back into the frame.
      await page.getByRole('button', { name: 'Show all' }).click();
      await page.waitForTimeout(400);
      const back = countPixels(await viewPixels(page), isModel);
      assert.ok(
        Math.abs(back - before) < before * 0.05,
        `the whole model framed again (${back} vs ${before})`,
      );
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  }

  void test('1280×800: every tool of the view is above the fold', async () => {
    assert.ok(models.truck);
    const errors: string[] = [];
    const page = await openPage({ width: 1280, height: 800 }, errors);
    await openModel(page, models.truck.id);
    await page.locator('.animation-controls').waitFor();
    const tools: [string, Locator][] = [
      ['level of detail', page.locator('.lod-switcher')],
      ['Isolate', page.getByRole('button', { name: 'Isolate' })],
      ['Hide', page.getByRole('button', { name: 'Hide' })],
      ['Show all', page.getByRole('button', { name: 'Show all' })],
      ['X-ray', page.getByRole('button', { name: 'X-ray' })],
      ['Measure', page.getByRole('button', { name: 'Measure' })],
      ['Reset view', page.getByRole('button', { name: 'Reset view' })],
      ['Section', page.locator('.section-controls')],
      ['Animation', page.locator('.animation-controls')],
      ['Play', page.getByRole('button', { name: 'Play' })],
      ['the view', page.locator('.viewer canvas')],
    ];
    for (const [what, locator] of tools) await assertInWindow(page, locator, what);
    assert.equal(await page.evaluate(() => window.scrollY), 0, 'nothing was scrolled');
    const tall = await page.evaluate(() => document.documentElement.scrollHeight);
    assert.ok(tall <= 800, `the page fits the window's height (${tall} px)`);
    await shoot(page, 'tools');
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  void test('1280×800: a section through a solid shows a filled cap at the cut', async () => {
    assert.ok(models.cubes);
    const errors: string[] = [];
    const page = await openPage({ width: 1280, height: 800 }, errors);
    await openModel(page, models.cubes.id);
    const cut = page.getByLabel('Cut X');
    await assertInWindow(page, cut, 'Cut X');
    await cut.check();
    await page.waitForTimeout(400);
    // The cut runs through the middle cube's centre, which is the model's centre and so the view's; the camera
    // looks from the cut-away side, straight into the cube.
    const view = await viewPixels(page);
    await shoot(page, 'section-cap');
    const isCap = (rgb: [number, number, number]) => !differs(rgb, CAP, 12);
    const centre = pixelAt(view, Math.floor(view.width / 2), Math.floor(view.height / 2));
    assert.ok(isCap(centre), `the centre shows the cap's colour, not ${centre.join(', ')}`);
    // The cut face of one cube of the five in a row, seen at an angle: a small but solid patch.
    const capped = countPixels(view, isCap);
    assert.ok(capped > view.width * view.height * 0.001, `${capped} cap pixels`);
    // Moved to the far end, the plane cuts nothing and no cap is left.
    await page.getByLabel('X section position').fill('1000');
    await page.waitForTimeout(400);
    assert.equal(countPixels(await viewPixels(page), isCap), 0, 'no cap when nothing is cut');
    assert.deepEqual(errors, []);
    await page.context().close();
  });

  for (const size of SIZES) {
    void test(`${size.width}×${size.height}: a point cloud is counted in points`, async () => {
      assert.ok(models.cloud);
      const errors: string[] = [];
      const page = await openPage(size, errors);
      await page.goto(`${server.baseUrl}/#/`);
      const card = page.locator(`.model-card[data-model-id="${models.cloud.id}"]`);
      assert.equal(await card.locator('.triangles').textContent(), '5,000 points');
      await openModel(page, models.cloud.id);
      assert.equal(await page.locator('.triangle-count').textContent(), 'LOD 0: 5,000 points shown');
      assert.equal(await page.locator('.viewer').getAttribute('data-points'), String(POINTS));
      assert.equal(await page.locator('[data-lod-count="0"]').textContent(), '5,000 points');
      assert.equal(await page.locator('.part-button small').first().textContent(), '5,000 pts');
      // A thinner level is counted once the view has loaded it.
      await page.getByRole('radio', { name: /^LOD 2/ }).check();
      await page.locator('.viewer[data-lod="2"][data-state="ready"]').waitFor();
      const points = Number(await page.locator('.viewer').getAttribute('data-points'));
      assert.ok(points > 0 && points < POINTS, `LOD 2 draws ${points} points`);
      assert.equal(
        await page.locator('[data-lod-count="2"]').textContent(),
        `${points.toLocaleString('en-US')} points`,
      );
      assert.equal(
        await page.locator('.triangle-count').textContent(),
        `LOD 2: ${points.toLocaleString('en-US')} points shown`,
      );
      await shoot(page, 'point-cloud');
      assert.deepEqual(errors, []);
      await page.context().close();
    });
  }
});
