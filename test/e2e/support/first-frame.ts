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
