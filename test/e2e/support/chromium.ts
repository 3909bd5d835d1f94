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

/** Starts headless Chromium, failing with the install hint when it is missing. */
export async function launchChromium(): Promise<Browser> {
  assert.ok(
    existsSync(CHROMIUM),
    `Chromium is needed at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`,
  );
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}
