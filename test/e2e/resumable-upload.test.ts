// A browser upload cut by a page reload continues where it stopped: Chromium uploads through the viewer over a
// throttled connection, the page reloads mid-upload, the same file is chosen again, and tus-js-client asks the
// server for its offset (HEAD) and sends only the rest; the model then converts.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { startServer, type RunningServer } from './support/server-process.ts';
import { startThrottledProxy, type ThrottledProxy } from './support/throttled-proxy.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';

const REPO = CHECKOUT_ROOT;
const BARREL = join(SAMPLE_MODELS, 'glb/barrel.glb');
const TOKEN = 'e2e-resume-token-0123456789';
/** 3.7 MB at this rate takes about 9 s, time enough to reload part-way. */
const BYTES_PER_SECOND = 400 * 1024;

/** Polls the server's upload folder until its one upload holds `bytes`; returns what it holds then. */
async function untilServerHolds(dataDir: string, bytes: number, timeoutMs: number): Promise<number> {
  const folder = join(dataDir, 'uploads');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const names = existsSync(folder) ? (await readdir(folder)).filter((name) => !name.includes('.')) : [];
    const held = names.length === 1 ? (await stat(join(folder, names[0]!))).size : 0;
    if (held >= bytes) return held;
    if (Date.now() > deadline) throw new Error(`the server held ${held} bytes, never ${bytes}`);
    await sleep(100);
  }
}

/** One tus request the page made, as the browser saw it. */
interface TusExchange {
  method: string;
  url: string;
  offsetSent?: string;
  offsetAnswered?: string;
  status: number;
}

void describe('resumable upload in the viewer', { timeout: 5 * 60_000, skip: skipWithoutChromium }, () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  let proxy: ThrottledProxy | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const exchanges: TusExchange[] = [];

  before(async () => {
    assert.ok(existsSync(BARREL), `sample model missing: ${BARREL}`);
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-e2e-resume-'));
    server = await startServer({ repoDir: REPO, dataDir, apiToken: TOKEN, timeoutMs: 60_000 });
    proxy = await startThrottledProxy(Number(new URL(server.baseUrl).port), BYTES_PER_SECOND);
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on('response', (response) => {
      const request = response.request();
      if (!new URL(request.url()).pathname.startsWith('/api/uploads')) return;
      exchanges.push({
        method: request.method(),
        url: request.url(),
        offsetSent: request.headers()['upload-offset'],
        offsetAnswered: response.headers()['upload-offset'],
        status: response.status(),
      });
    });
  });

  after(async () => {
    await browser?.close();
    await proxy?.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  void test('continues after a reload from the offset the server holds, and the model converts', async () => {
    assert.ok(proxy && server);
    await page.goto(`${proxy.baseUrl}/`);
    await page.evaluate((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
    await page.reload();
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();

    await page.locator('.upload-panel input[type=file]').setInputFiles(BARREL);
    // The browser's own progress runs ahead of the server by whatever the socket buffers hold, so the reload
    // waits on what the server has written.
    const size = (await stat(BARREL)).size;
    const heldBeforeReload = await untilServerHolds(dataDir, size * 0.3, 60_000);
    assert.ok(
      heldBeforeReload < size * 0.8,
      `the upload was still under way (${heldBeforeReload} of ${size})`,
    );
    const created = exchanges.filter((exchange) => exchange.method === 'POST');
    assert.equal(created.length, 1, 'one upload was created');
    await page.reload();
    await page.getByRole('heading', { name: 'Models', level: 1 }).waitFor();
    const beforeResume = exchanges.length;

    await page.locator('.upload-panel input[type=file]').setInputFiles(BARREL);
    await page.waitForFunction(
      () => {
        const status = document.querySelector<HTMLElement>('.upload-item')?.dataset.status;
        return status === 'completed' || status === 'failed' || status === 'upload-failed';
      },
      undefined,
      { timeout: 240_000, polling: 250 },
    );
    const item = page.locator('.upload-item').first();
    assert.equal(await item.getAttribute('data-status'), 'completed', (await item.textContent()) ?? '');
    assert.equal(await item.getAttribute('data-resumed'), 'true', 'the viewer said it resumed');

    const afterReload = exchanges.slice(beforeResume);
    const trace = JSON.stringify(afterReload);
    assert.deepEqual(
      afterReload.filter((exchange) => exchange.method === 'POST'),
      [],
      `no new upload was created after the reload: ${trace}`,
    );
    const head = afterReload.find((exchange) => exchange.method === 'HEAD');
    assert.ok(head, `the resumed upload asked the server for its offset: ${trace}`);
    const heldOffset = Number(head.offsetAnswered);
    assert.ok(
      heldOffset >= heldBeforeReload && heldOffset < size,
      `the server held part of the file after the reload (${heldOffset} of ${size})`,
    );
    const patches = afterReload.filter((exchange) => exchange.method === 'PATCH');
    assert.ok(patches.length > 0, trace);
    assert.ok(
      patches.every((patch) => patch.url === head.url),
      'the chunks went to the same upload',
    );
    assert.equal(Number(patches[0]!.offsetSent), heldOffset, 'the first chunk after the reload starts there');
    assert.equal(Number(patches.at(-1)!.offsetAnswered), size);

    const listed = await fetch(`${server.baseUrl}/api/models`, { headers: { 'X-API-Token': TOKEN } });
    const models = ((await listed.json()) as { data: { name: string; status: string }[] }).data;
    assert.deepEqual(
      models.map((model) => [model.name, model.status]),
      [['barrel', 'completed']],
    );
    await page.getByRole('link', { name: 'Open barrel' }).waitFor();
  });
});
