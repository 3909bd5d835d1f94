// Share links end to end: real server, real headless Chromium. The model page creates a link; a fresh browser
// context with no token opens it and sees the model painted with its bound materials (red and green pixels),
// also embedded in an iframe of another origin; revoking the link on the model page makes the page say it is gone.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { cubesGlb } from './support/cubes-glb.ts';
import { countPixels, decodePng, isGreen, isRed, type Pixels } from './support/pixels.ts';
import { freePort, startServer, type RunningServer } from './support/server-process.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const TOKEN = 'e2e-share-token-0123456789';
/** A painted cube covers far more than this many pixels of the view. */
const PAINTED_PIXELS = 1500;

let dataDir: string;
let server: RunningServer | undefined;
let browser: Browser | undefined;
let owner: Page;
let visitorContext: BrowserContext;
let visitor: Page;
let embedHost: Server | undefined;
const visitorRequests: string[] = [];
const pageErrors: string[] = [];
const run: { modelId?: string; shareUrl?: string } = {};

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  assert.ok(server, 'server is running');
  const headers: Record<string, string> = { 'X-API-Token': TOKEN };
  if (typeof init.body === 'string') headers['Content-Type'] = 'application/json';
  return fetch(server.baseUrl + path, { ...init, headers });
}

/** Uploads two cubes, waits for the conversion and binds a red material to one and a green one to the other. */
async function uploadPaintedCubes(): Promise<string> {
  const form = new FormData();
  form.set('name', 'Painted cubes');
  form.set('file', new Blob([Buffer.from(await cubesGlb(['Red cube', 'Green cube']))]), 'cubes.glb');
  const created = await api('/api/models', { method: 'POST', body: form });
  assert.equal(created.status, 201, await created.clone().text());
  const id = ((await created.json()) as { data: { id: string } }).data.id;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const model = (await (await api(`/api/models/${id}`)).json()) as {
      data: { status: string; error: string };
    };
    if (model.data.status === 'completed') break;
    assert.notEqual(model.data.status, 'failed', model.data.error);
    assert.ok(Date.now() < deadline, 'the cubes converted in time');
    await new Promise((done) => setTimeout(done, 250));
  }
  const parts = (
    (await (await api(`/api/models/${id}/parts`)).json()) as { data: { group_id: string; name: string }[] }
  ).data;
  for (const [name, colour] of [
    ['Red cube', { diffuse_r: 230, diffuse_g: 20, diffuse_b: 20 }],
    ['Green cube', { diffuse_r: 20, diffuse_g: 200, diffuse_b: 30 }],
  ] as const) {
    const material = await api('/api/v1/materials', {
      method: 'POST',
      body: JSON.stringify({ name, ...colour }),
    });
    const materialId = ((await material.json()) as { data: { id: number } }).data.id;
    const groupId = parts.find((part) => part.name === name)?.group_id;
    assert.ok(groupId, `part ${name} exists`);
    const bound = await api(`/api/v1/materials/${materialId}/bindings`, {
      method: 'POST',
      body: JSON.stringify({ group_ids: [groupId] }),
    });
    assert.equal(bound.status, 200);
  }
  return id;
}

/** Screenshots the view in `where` until both colours show, and returns the last shot. */
async function untilPainted(where: Page | Frame, selector: string): Promise<Pixels> {
  await where.locator(`${selector}[data-state="ready"]`).waitFor({ timeout: 60_000 });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const pixels = await decodePng(await where.locator(`${selector} canvas`).screenshot());
    if (countPixels(pixels, isRed) > PAINTED_PIXELS && countPixels(pixels, isGreen) > PAINTED_PIXELS)
      return pixels;
    if (Date.now() > deadline) {
      throw new Error(
        `the view never showed both bound colours (red ${countPixels(pixels, isRed)}, green ${countPixels(pixels, isGreen)})`,
      );
    }
    await new Promise((done) => setTimeout(done, 250));
  }
}

void describe('share links end to end', { timeout: 10 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-share-'));
    server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
    browser = await launchChromium();
    const ownerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ownerContext.addInitScript((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
    owner = await ownerContext.newPage();
    visitorContext = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    visitor = await visitorContext.newPage();
    visitor.on('request', (request) => visitorRequests.push(new URL(request.url()).pathname));
    for (const page of [owner, visitor]) {
      page.on('pageerror', (error) => pageErrors.push(error.message));
    }
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((done) => (embedHost ? embedHost.close(done) : done(undefined)));
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  void test('creates a share link from the model page', async () => {
    run.modelId = await uploadPaintedCubes();
    await owner.goto(`${server!.baseUrl}/#/models/${run.modelId}`);
    // The share panel is on the Details tab beside the view.
    await owner.getByRole('tab', { name: 'Details' }).click();
    const panel = owner.locator('.share-panel');
    await panel.getByText('No links yet').waitFor();
    await panel.getByRole('button', { name: 'Create link' }).click();
    const input = panel.locator('input.share-url');
    await input.waitFor();
    run.shareUrl = await input.inputValue();
    assert.match(run.shareUrl, new RegExp(`^${server!.baseUrl}/s/[A-Za-z0-9_-]{43}$`));
  });

  void test('opens the link in a fresh context with no token: the model painted with its bound materials', async () => {
    assert.ok(run.shareUrl);
    assert.deepEqual(await visitorContext.storageState().then((state) => state.origins), []);
    await visitor.goto(run.shareUrl);
    await visitor.getByRole('heading', { name: 'Painted cubes', level: 1 }).waitFor();
    await untilPainted(visitor, '.share-viewer');
    assert.equal(await visitor.locator('.part-button').count(), 2, 'both parts are listed');
    assert.ok(
      visitorRequests.every((path) => !path.startsWith('/api/') && !path.startsWith('/files/')),
      `the page read only through its link: ${visitorRequests.join(', ')}`,
    );
    assert.ok(visitorRequests.some((path) => path.endsWith('/lod/0')));
  });

  void test('renders the bare viewer for an iframe on another site', async () => {
    assert.ok(run.shareUrl);
    const port = await freePort();
    embedHost = createServer((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(
        `<!doctype html><title>Blog</title><iframe src="${run.shareUrl}?embed=1" width="640" height="480"></iframe>`,
      );
    }).listen(port, '127.0.0.1');
    const blog = await visitorContext.newPage();
    // localhost is another origin than the server's 127.0.0.1.
    await blog.goto(`http://localhost:${port}/`);
    const frame = await (await blog.locator('iframe').elementHandle())!.contentFrame();
    assert.ok(frame, 'the iframe loaded');
    await untilPainted(frame, '.share-viewer');
    assert.equal(await frame.locator('h1').count(), 0, 'the embed shows the view alone');
    await blog.close();
  });

  void test('revokes the link on the model page; the open page then says it is gone', async () => {
    const panel = owner.locator('.share-panel');
    await panel.getByRole('button', { name: 'Revoke' }).click();
    await panel.getByText('No links yet').waitFor();
    await visitor.reload();
    await visitor.getByRole('heading', { name: 'This link is not available' }).waitFor();
    assert.equal(await visitor.locator('canvas').count(), 0);
    const lod = await fetch(`${run.shareUrl}/models/${run.modelId}/lod/0`);
    assert.equal(lod.status, 404);
    assert.deepEqual(pageErrors, []);
  });
});
