// A share link made with `configurations: true`, end to end: real server, headless Chromium, no token. The page's
// "Configuration" picker repaints a cube blue, then red again; on a browser that says links may open AR Quick
// Look, "View in AR" links to the chosen configuration's USDZ, which answers with the file; on Android it is a Scene
// Viewer intent for the configuration's GLB; where WebXR offers immersive AR it asks for that session.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { countPixels, decodePng, isRed, type Pixels } from './support/pixels.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const TOKEN = 'e2e-share-configurations-token-0123456789';
/** A painted cube covers far more than this many pixels of the view. */
const PAINTED_PIXELS = 1500;

/** A clearly blue pixel: blue well above both red and green. */
function isBlue([r, g, b]: [number, number, number]): boolean {
  return b > 90 && b - r > 60 && b - g > 60;
}

let dataDir: string;
let server: RunningServer | undefined;
let browser: Browser | undefined;
const pageErrors: string[] = [];
const run: { shareUrl?: string } = {};

/** The fields these calls read from the API's answers. */
interface Data {
  /** A model's id, or a material's number (read through Number). */
  id: string;
  status: string;
  url: string;
  configurations: boolean;
  0: { group_id: string };
}

async function api(path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') {
  assert.ok(server, 'server is running');
  const headers: Record<string, string> = { 'X-API-Token': TOKEN };
  if (body !== undefined && !(body instanceof FormData)) headers['Content-Type'] = 'application/json';
  const payload = body instanceof FormData ? body : body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(server.baseUrl + path, { method, headers, body: payload });
  return { status: response.status, json: (await response.json()) as { data: Data } };
}

/** One cube, red at present; a configuration painting it blue and one painting it red; a link showing them. */
async function shareConfiguredCube(): Promise<string> {
  const form = new FormData();
  form.set('name', 'Configured cube');
  form.set('file', new Blob([Buffer.from(await cubesGlb(['Cube']))]), 'cube.glb');
  const created = await api('/api/models', form);
  assert.equal(created.status, 201);
  const id = created.json.data.id;
  const deadline = Date.now() + 120_000;
  while ((await api(`/api/models/${id}`)).json.data.status !== 'completed') {
    assert.ok(Date.now() < deadline, 'the cube converted in time');
    await new Promise((done) => setTimeout(done, 250));
  }
  const groupId = (await api(`/api/models/${id}/parts`)).json.data[0].group_id;
  const material = async (name: string, rgb: [number, number, number]) => {
    const [diffuse_r, diffuse_g, diffuse_b] = rgb;
    return Number((await api('/api/v1/materials', { name, diffuse_r, diffuse_g, diffuse_b })).json.data.id);
  };
  const red = await material('Red', [230, 20, 20]);
  const blue = await material('Blue', [20, 30, 230]);
  assert.equal((await api(`/api/v1/materials/${red}/bindings`, { group_ids: [groupId] })).status, 200);
  for (const [name, materialId] of [
    ['Blue cube', blue],
    ['Red cube', red],
  ] as const) {
    const made = await api(`/api/models/${id}/configurations`, { name });
    assert.equal(made.status, 201);
    const bindings = { bindings: [{ group_id: groupId, material_id: materialId }] };
    const bound = await api(
      `/api/models/${id}/configurations/${made.json.data.id}/bindings`,
      bindings,
      'PUT',
    );
    assert.equal(bound.status, 200);
  }
  const share = await api(`/api/models/${id}/shares`, { configurations: true });
  assert.equal(share.status, 201);
  assert.equal(share.json.data.configurations, true);
  return share.json.data.url;
}

/** Screenshots the view until `colour` covers the cube, and returns the last shot. */
async function untilPainted(page: Page, colour: (rgb: [number, number, number]) => boolean): Promise<Pixels> {
  await page.locator('.share-viewer[data-state="ready"]').waitFor({ timeout: 60_000 });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pixels = await decodePng(await page.locator('.share-viewer canvas').screenshot());
    if (countPixels(pixels, colour) > PAINTED_PIXELS) return pixels;
    if (Date.now() > deadline) throw new Error(`the cube never turned ${colour.name.slice(2)}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

void describe(
  'share link configurations end to end',
  { timeout: 10 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      ensureViewerBuilt(REPO);
      dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-share-configurations-'));
      server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
      browser = await launchChromium();
      run.shareUrl = await shareConfiguredCube();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    void test('the Configuration picker repaints the cube blue, then red', async () => {
      const context = await browser!.newContext({ viewport: { width: 1100, height: 800 } });
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(run.shareUrl!);
      await untilPainted(page, isRed);
      const picker = page.getByLabel('Configuration', { exact: true });
      await picker.selectOption({ label: 'Blue cube' });
      const blue = await untilPainted(page, isBlue);
      assert.ok(countPixels(blue, isRed) < PAINTED_PIXELS / 10, 'no red left');
      await picker.selectOption({ label: 'Red cube' });
      const red = await untilPainted(page, isRed);
      assert.ok(countPixels(red, isBlue) < PAINTED_PIXELS / 10, 'no blue left');
      // No AR on a desktop browser without WebXR: no button.
      assert.equal(await page.locator('.share-ar').count(), 0);
      await context.close();
      assert.deepEqual(pageErrors, []);
    });

    void test('on a browser that opens AR Quick Look, View in AR links to the USDZ, which answers the file', async () => {
      const context = await browser!.newContext({ viewport: { width: 1100, height: 800 } });
      // Safari on iOS answers true for `rel="ar"`; Chromium is told to say so too.
      await context.addInitScript(() => {
        const supports = DOMTokenList.prototype.supports;
        DOMTokenList.prototype.supports = function (token: string) {
          return token === 'ar' ? true : supports.call(this, token);
        };
      });
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(run.shareUrl!);
      await untilPainted(page, isRed);
      await page.getByLabel('Configuration', { exact: true }).selectOption({ label: 'Blue cube' });
      const link = page.locator('a[rel="ar"]');
      await link.waitFor({ timeout: 120_000 });
      assert.equal(await link.locator('img').count(), 1, 'Quick Look needs an image child');
      const href = await link.getAttribute('href');
      assert.match(href ?? '', /\/configurations\/[0-9a-f-]{36}\/model\.usdz$/);
      const usdz = await fetch(new URL(href!, run.shareUrl).href);
      assert.equal(usdz.status, 200);
      assert.equal(usdz.headers.get('content-type'), 'model/vnd.usdz+zip');
      assert.equal(
        Buffer.from(await usdz.arrayBuffer())
          .subarray(0, 2)
          .toString('latin1'),
        'PK',
      );
      await context.close();
      assert.deepEqual(pageErrors, []);
    });

    void test('on Android, View in AR is a Scene Viewer intent for the chosen configuration’s GLB', async () => {
      const context = await browser!.newContext({
        viewport: { width: 412, height: 915 },
        userAgent:
          'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Mobile Safari/537.36',
      });
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(run.shareUrl!);
      await untilPainted(page, isRed);
      await page.getByLabel('Configuration', { exact: true }).selectOption({ label: 'Blue cube' });
      const link = page.locator('a.share-ar');
      await link.waitFor({ timeout: 120_000 });
      const href = (await link.getAttribute('href')) ?? '';
      assert.match(href, /^intent:\/\/arvr\.google\.com\/scene-viewer\/1\.0\?file=/);
      assert.match(href, /#Intent;scheme=https;package=com\.google\.ar\.core;.*end;$/);
      const file = new URL(href.replace(/^intent:/, 'https:').split('#')[0]!).searchParams.get('file') ?? '';
      assert.match(file, /\/configurations\/[0-9a-f-]{36}\/model\.glb$/);
      const glb = await fetch(file);
      assert.equal(glb.status, 200);
      assert.deepEqual(
        glbColours(Buffer.from(await glb.arrayBuffer())),
        [[0, 0, 1]],
        'the GLB paints it blue',
      );
      await context.close();
      assert.deepEqual(pageErrors, []);
    });

    void test('where WebXR offers immersive AR, View in AR asks for the session and says when it cannot start', async () => {
      const context = await browser!.newContext({ viewport: { width: 1100, height: 800 } });
      // A headset's browser: immersive-ar is offered, and here the person declines the session.
      // Given as text: a function would reach the page with the TypeScript loader's helpers in it.
      await context.addInitScript(`
        window.xrSessionsAsked = [];
        Object.defineProperty(navigator, 'xr', {
          value: {
            isSessionSupported: (mode) => Promise.resolve(mode === 'immersive-ar'),
            requestSession: (mode) => {
              window.xrSessionsAsked.push(mode);
              return Promise.reject(new DOMException('The user declined the session', 'NotAllowedError'));
            },
          },
        });
      `);
      const page = await context.newPage();
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(run.shareUrl!);
      await untilPainted(page, isRed);
      await page.getByLabel('Configuration', { exact: true }).selectOption({ label: 'Blue cube' });
      const button = page.getByRole('button', { name: 'View Blue cube in AR' });
      await button.click({ timeout: 120_000 });
      await page
        .getByRole('alert')
        .filter({ hasText: 'AR could not start: The user declined the session' })
        .waitFor();
      assert.deepEqual(
        await page.evaluate(() => (window as unknown as { xrSessionsAsked: string[] }).xrSessionsAsked),
        ['immersive-ar'],
      );
      await context.close();
      assert.deepEqual(pageErrors, []);
    });
  },
);

/** The base colours (red, green, blue, rounded) of a GLB's materials, read off its JSON chunk. */
function glbColours(glb: Buffer): number[][] {
  assert.equal(glb.subarray(0, 4).toString('latin1'), 'glTF');
  const json = JSON.parse(glb.subarray(20, 20 + glb.readUInt32LE(12)).toString('utf8')) as {
    materials?: { pbrMetallicRoughness?: { baseColorFactor?: number[] } }[];
  };
  return (json.materials ?? []).map((material) =>
    (material.pbrMetallicRoughness?.baseColorFactor ?? [1, 1, 1])
      .slice(0, 3)
      .map((channel) => Math.round(channel)),
  );
}
