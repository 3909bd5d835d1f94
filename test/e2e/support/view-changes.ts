// Whether a click changed the picture in the view, and where the model lies in it: shared by the suites that check
// the view's toolbar on the model page and on the share page.
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { decodePng, differs, pixelAt, type Pixels } from './pixels.ts';
import { VIEW_BACKGROUND } from './viewer-session.ts';

/** The canvas's pixels as drawn now (after a frame or two). */
export async function viewPixels(page: Page): Promise<Pixels> {
  await page.waitForTimeout(250);
  return decodePng(await page.locator('.viewer canvas').screenshot());
}

/** The share of pixels that differ between two pictures of the same size. */
export function changedShare(a: Pixels, b: Pixels): number {
  assert.equal(a.width, b.width);
  assert.equal(a.height, b.height);
  let changed = 0;
  for (let y = 0; y < a.height; y += 2) {
    for (let x = 0; x < a.width; x += 2) if (differs(pixelAt(a, x, y), pixelAt(b, x, y), 16)) changed += 1;
  }
  return changed / ((a.width / 2) * (a.height / 2));
}

/** Clicks `button` (or runs `act`) and fails unless the view's picture changed in more than a few pixels. */
export async function assertRedraws(
  page: Page,
  button: Locator,
  what: string,
  act?: () => Promise<void>,
): Promise<void> {
  const before = await viewPixels(page);
  if (act) await act();
  else await button.click();
  const after = await viewPixels(page);
  const share = changedShare(before, after);
  assert.ok(share > 0.002, `${what} changed ${(share * 100).toFixed(2)} % of the view`);
}

/** The centres (canvas x) of the runs of model pixels along the canvas's middle row, left to right. */
export function modelRuns(pixels: Pixels): number[] {
  const y = Math.floor(pixels.height / 2);
  const runs: number[] = [];
  let start = -1;
  for (let x = 16; x < pixels.width - 16; x += 1) {
    const model = differs(pixelAt(pixels, x, y), VIEW_BACKGROUND);
    if (model && start < 0) start = x;
    if (!model && start >= 0) {
      if (x - start > 4) runs.push((start + x) / 2);
      start = -1;
    }
  }
  return runs;
}

/** Pixels showing the model rather than the background. */
export function countModel(pixels: Pixels): number {
  let count = 0;
  for (let y = 0; y < pixels.height; y += 2) {
    for (let x = 0; x < pixels.width; x += 2) if (differs(pixelAt(pixels, x, y), VIEW_BACKGROUND)) count += 1;
  }
  return count;
}
