// Launches Debian's Chromium for the browser tests: software WebGL, no network chatter, no first-run UI.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { skipUnlessAvailable } from '../../helpers/needed-service.ts';

/** Path of the browser; `CHROMIUM_PATH` overrides Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * The `skip` option of every suite that drives Chromium: outside CI they are skipped when it is missing (`npm test`
 * says so in one line); in CI they run, and fail with the install hint.
 */
export const skipWithoutChromium = skipUnlessAvailable(
  existsSync(CHROMIUM),
  `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
);

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * How long a click, a wait or a screenshot may take, and a navigation, where Playwright's default is 30 s for each:
 * software WebGL on a busy two-core machine can hold a page's load event or its next frame past that, and a page
 * that never gets there still fails, later.
 */
export const ACTION_TIMEOUT_MS = 90_000;
export const NAVIGATION_TIMEOUT_MS = 120_000;

/**
 * Starts headless Chromium, failing with the install hint when it is missing; every context it opens (and the one
 * behind each `browser.newPage()`) waits {@link ACTION_TIMEOUT_MS} and {@link NAVIGATION_TIMEOUT_MS} by default.
 */
export async function launchChromium(): Promise<Browser> {
  assert.ok(
    existsSync(CHROMIUM),
    `Chromium is needed at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
    return context;
  };
  return browser;
}
