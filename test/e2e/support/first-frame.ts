// Times a model page's first frame with geometry: the moment the view's canvas first reports `data-drawn`.
import type { Page } from 'playwright-core';

/** Records in the page the moment the view's canvas first drew some of the model (an init script). */
export function recordFirstFrame(): void {
  new MutationObserver((_changes, observer) => {
    if (!document.querySelector('.viewer canvas[data-drawn]')) return;
    observer.disconnect();
    (window as { drawnAt?: number }).drawnAt = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-drawn'] });
}

/**
 * Opens `address` afresh and answers the milliseconds from navigation to the first frame that drew some of the
 * model (the canvas's `data-drawn`), once the view reports `lod` shown. The page's context must run
 * {@link recordFirstFrame} as an init script.
 */
export async function timeToFirstFrame(
  page: Page,
  address: string,
  lod: string,
  timeoutMs = 300_000,
): Promise<number> {
  await page.goto('about:blank');
  await page.goto(address);
  await page
    .locator(`.viewer[data-state="ready"][data-lod="${lod}"] canvas[data-drawn]`)
    .waitFor({ timeout: timeoutMs });
  return page.evaluate(() => (window as { drawnAt?: number }).drawnAt ?? Number.NaN);
}

/**
 * The page's own timeline since navigation, in milliseconds: its `vitrine:` marks (the tileset's prefetch, the
 * shaders' warm-up, the first tile, the first frame) and when each script, API and file request started and ended.
 */
export async function pageTimeline(page: Page): Promise<string[]> {
  // No named functions inside: the page lacks the helper the test runner's compiler names them with.
  return page.evaluate(() => {
    const marks = performance
      .getEntriesByType('mark')
      .filter((entry) => entry.name.startsWith('vitrine:'))
      .map((entry) => ({ at: entry.startTime, line: `${Math.round(entry.startTime)} ms ${entry.name}` }));
    const requests = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map(
      (entry) => ({
        at: entry.startTime,
        line:
          `${Math.round(entry.startTime)}–${Math.round(entry.responseEnd)} ms ` +
          `${new URL(entry.name).pathname.replace(/^.*\/(files|api)\//, '$1/').slice(-60)} (${entry.encodedBodySize} B)`,
      }),
    );
    return [...marks, ...requests].sort((a, b) => a.at - b.at).map((entry) => entry.line);
  });
}

/**
 * Lets the page's view finish the drawing it has queued before the page is left: waits `idleMs` (the view's work
 * after its first frame, such as prefiltering its lighting, is scheduled from it), then reads a pixel back, which
 * waits until the browser's graphics process has drawn everything asked of it so far. Otherwise the next page's
 * view would wait for that leftover work when it creates its WebGL context, and its time would count it.
 */
export async function settleView(page: Page, idleMs = 3000): Promise<void> {
  await page.waitForTimeout(idleMs);
  await page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('.viewer canvas');
    const gl = canvas?.getContext('webgl2');
    gl?.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  });
}
