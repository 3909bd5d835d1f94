// The conversion status page follows a conversion through the event stream, not by polling: a `vitrine serve`
// process and, started only once the page shows the model waiting, a `vitrine worker` process on the same data.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './support/build-viewer.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { startServer, stopChild, type RunningServer } from './support/server-process.ts';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';
import { cliArguments } from '../helpers/cli-arguments.ts';

const REPO = CHECKOUT_ROOT;
const TRUCK = join(SAMPLE_MODELS, 'glb/CesiumMilkTruck.glb');
const TOKEN = 'e2e-live-status-token-0123456789';
const CONVERSION_TIMEOUT_MS = 240_000;

void describe('conversion status over the event stream (Chromium)', { skip: skipWithoutChromium }, () => {
  let dataDir: string;
  let server: RunningServer | undefined;
  let worker: ChildProcess | undefined;
  let browser: Browser | undefined;
  let page: Page;

  before(async () => {
    ensureViewerBuilt(REPO);
    dataDir = await mkdtemp(join(tmpdir(), 'vitrine-live-'));
    server = await startServer({
      repoDir: REPO,
      dataDir,
      apiToken: TOKEN,
      timeoutMs: 60_000,
      command: 'serve',
    });
    browser = await launchChromium();
    page = await browser.newPage();
  });
  after(async () => {
    await browser?.close();
    if (worker) await stopChild(worker);
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  void test('updates the status page from events, with no polling requests', async () => {
    assert.ok(server);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(await readFile(TRUCK))]), 'CesiumMilkTruck.glb');
    const uploaded = await fetch(`${server.baseUrl}/api/models`, {
      method: 'POST',
      headers: { 'x-api-token': TOKEN },
      body: form,
    });
    assert.equal(uploaded.status, 201);
    const id = ((await uploaded.json()) as { data: { id: string } }).data.id;

    const modelReads: string[] = [];
    const streams: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === `/api/models/${id}`) modelReads.push(url.pathname);
      if (url.pathname === '/api/events') streams.push(url.search);
    });
    await page.goto(server.baseUrl + '/');
    await page.evaluate((token) => localStorage.setItem('vitrine.apiToken', token), TOKEN);
    await page.goto(`${server.baseUrl}/#/models/${id}`);
    // Only the hash changed: load again so the page starts with the stored token.
    await page.reload();
    await page
      .getByText(/^Waiting for conversion: 0 %$/)
      .waitFor({ timeout: 15_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\n--- page ---\n${await page.locator('body').innerText()}`);
      });
    // The stream is open: the page read the model once more when it opened.
    for (let waited = 0; streams.length === 0 || modelReads.length < 2; waited += 100) {
      assert.ok(
        waited < 15_000,
        `the page opened the event stream (${streams.length}, ${modelReads.length} reads)`,
      );
      await page.waitForTimeout(100);
    }
    await page.evaluate(() => {
      const seen: string[] = [];
      Object.assign(window, { statusTexts: seen });
      new MutationObserver(() => {
        for (const span of Array.from(document.querySelectorAll('span'))) {
          const text = span.textContent ?? '';
          if (/^(Waiting for conversion|Converting): \d+ %$/.test(text) && seen.at(-1) !== text)
            seen.push(text);
        }
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    // Nothing changes while no worker runs; a polling page would keep reading the model meanwhile.
    const readsBefore = modelReads.length;
    await page.waitForTimeout(3_000);
    assert.equal(modelReads.length, readsBefore, 'no reads of the model while it waits');

    worker = spawn(process.execPath, [...cliArguments(), 'worker'], {
      cwd: REPO,
      env: { ...process.env, DATA_DIR: dataDir, API_TOKEN: TOKEN, LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    await page.locator('.viewer canvas').waitFor({ timeout: CONVERSION_TIMEOUT_MS });

    const texts = await page.evaluate(() => (window as unknown as { statusTexts: string[] }).statusTexts);
    assert.ok(
      texts.some((text) => /^Converting: \d+ %$/.test(text)),
      `progress shown from events: ${texts.join(' | ')}`,
    );
    // One read when the model completed (for its levels of detail), none while it converted.
    assert.equal(
      modelReads.length - readsBefore,
      1,
      `model reads after the page settled: ${modelReads.length}`,
    );
    assert.ok(streams.length >= 1 && streams.every((search) => search.includes(`model_id=${id}`)));
  });
});
