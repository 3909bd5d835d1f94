// What most browser suites start from: a server of their own on a fresh data folder, a catalog client, and a
// Chromium page at 1280×800 already holding the API token; and a screenshot of the view once it has drawn.
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { ensureViewerBuilt } from './build-viewer.ts';
import { catalogClient } from './catalog-client.ts';
import { launchChromium } from './chromium.ts';
import { hexToRgb } from './pixels.ts';
import { startServer, type RunningServer } from './server-process.ts';
import { CHECKOUT_ROOT } from '../../helpers/checkout-root.ts';

/** The repository the server runs from. */
export const REPO = CHECKOUT_ROOT;
/** Must match VIEW_BACKGROUND in web/src/viewer/model-viewport.ts. */
export const VIEW_BACKGROUND = hexToRgb('#262b36');
/** Pixels along the canvas edge to leave out: its rounded corners show the page behind it. */
export const CANVAS_EDGE = 16;
/** Where screenshots go when VITRINE_E2E_SHOTS names a folder, to look at; made if it is not there yet. */
export const SHOTS = process.env.VITRINE_E2E_SHOTS;
if (SHOTS) mkdirSync(SHOTS, { recursive: true });

/** A running server and a signed-in page, closed together. */
export interface ViewerSession {
  server: RunningServer;
  client: ReturnType<typeof catalogClient>;
  page: Page;
  /** Uncaught page errors seen so far (and console errors, when asked for). */
  pageErrors: string[];
  /** Closes the browser, stops the server and removes its data folder. */
  close(): Promise<void>;
}

/**
 * Builds the viewer if stale, starts a server named `name` with `token` (and `env` beside its defaults), and opens
 * a page holding the token.
 */
export async function openViewerSession(
  name: string,
  token: string,
  options: { consoleErrors?: boolean; env?: Record<string, string> } = {},
): Promise<ViewerSession> {
  ensureViewerBuilt(REPO);
  const dataDir = await mkdtemp(join(tmpdir(), `vitrine-e2e-${name}-`));
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    server = await startServer({
      repoDir: REPO,
      dataDir,
      apiToken: token,
      timeoutMs: 60_000,
      env: options.env,
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((saved) => localStorage.setItem('vitrine.apiToken', saved), token);
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    if (options.consoleErrors) {
      page.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text());
      });
    }
    return { server, client: catalogClient(server.baseUrl, token), page, pageErrors, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * A PNG of the view's canvas once its model is loaded and a frame or two drawn; saved under `name` when SHOTS is
 * set (the whole page too, when the view never gets ready). A clip of the page rather than an element screenshot:
 * the latter waits for the canvas to hold still, which a busy machine can stretch past its timeout.
 */
export async function viewShot(page: Page, name: string): Promise<Buffer> {
  const canvas = page.locator('.viewer[data-state="ready"] canvas');
  try {
    await canvas.waitFor({ timeout: 120_000 });
  } catch (error) {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}-not-ready.png`), fullPage: true });
    throw error;
  }
  await page.waitForTimeout(500);
  const box = await canvas.boundingBox({ timeout: 120_000 });
  if (!box) throw new Error('the canvas is not laid out');
  const png = await page.screenshot({ clip: box, timeout: 120_000 });
  if (SHOTS) await writeFile(join(SHOTS, `${name}.png`), png);
  return png;
}
