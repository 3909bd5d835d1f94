// The GLB of `materials=variants` in Google's <model-viewer> in headless Chromium, as a shop page would show it: the
// element lists the three configurations as its variants, and choosing each (`variantName`) changes the pixels of the
// part its configuration paints, to its colour, and no pixel of the other parts, even straight after another
// variant; no variant gives the model back.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TexturedPart } from '../exports/textured-parts.ts';
import { launchChromium, skipWithoutChromium } from './support/chromium.ts';
import { serveMadeUpOrigin, type OriginLog } from './support/made-up-origin.ts';
import {
  countPixels,
  decodePng,
  differs,
  isBlue,
  isGreen,
  isRed,
  pixelAt,
  type Pixels,
} from './support/pixels.ts';
import { PAINTS, variantsChairGlb, type Rgb } from './support/variants-chair.ts';
import { SHOTS } from './support/viewer-session.ts';

/** A made-up origin the page is served from: every request to it is answered from here, none leaves the machine. */
const ORIGIN = 'http://model-viewer.test';
const WHITE: Rgb = [255, 255, 255];
/** How long a load or a repaint may take to reach the screen on a busy machine. */
const RENDER_WAIT_MS = 60_000;
/** How far a pixel may stray and still count as unchanged: none should, the scene holds still. */
const SAME = 4;

/**
 * The page: model-viewer's own bundle (three.js inside) from node_modules, one element showing the chair head-on
 * (camera on +z, the parts side by side left to right: seat, back, legs) on white, its progress bar (shown again
 * while a variant is applied) left out. The GLB needs none of the Draco, KTX2 or other files model-viewer would fetch
 * from elsewhere, which the origin would note. A classic script before the module runs registers for `load`
 * and `error`, so neither can be missed.
 */
const PAGE = `<!doctype html>
<style>html, body { margin: 0; background: #fff; } model-viewer { width: 720px; height: 300px; }</style>
<script type="module" src="/@google/model-viewer/dist/model-viewer.min.js"></script>
<model-viewer src="/chair.glb" alt="chair" loading="eager" camera-orbit="0deg 90deg auto" interaction-prompt="none"
  environment-image="neutral" shadow-intensity="0"><div slot="progress-bar"></div></model-viewer>
<script>
const viewer = document.querySelector('model-viewer');
window.loaded = new Promise((resolve, reject) => {
  viewer.addEventListener('load', () => resolve(), { once: true });
  viewer.addEventListener('error', (event) => reject(new Error(JSON.stringify(event.detail))), { once: true });
});
</script>`;

/** Where a part shows on screen: its box (from the pixels that are not background) and a point inside a texel. */
interface PartOnScreen {
  left: number;
  right: number;
  top: number;
  bottom: number;
  x: number;
  y: number;
}

/** A clearly painted pixel of each configuration's colour. */
const IS_PAINTED: Record<string, (rgb: Rgb) => boolean> = {
  'Red seat': isRed,
  'Green back': isGreen,
  'Blue legs': isBlue,
};

let browser: Browser | undefined;
let page: Page;
let origin: OriginLog;

/** The element as drawn now. */
async function elementPixels(): Promise<Pixels> {
  const box = await page.locator('model-viewer').boundingBox();
  assert.ok(box, 'model-viewer is laid out');
  return decodePng(await page.screenshot({ clip: box }));
}

/** Takes pictures until two in a row are alike and `ready` holds for them (the change reached the screen). */
async function untilSettled(ready: (pixels: Pixels) => boolean, what: string): Promise<Pixels> {
  const deadline = Date.now() + RENDER_WAIT_MS;
  let last = await elementPixels();
  for (;;) {
    const pixels = await elementPixels();
    if (pixels.data.equals(last.data) && ready(pixels)) return pixels;
    last = pixels;
    assert.ok(Date.now() < deadline, `${what} within ${RENDER_WAIT_MS / 1000} s`);
  }
}

/** The runs of non-background pixels along row `y`, as [first, last] columns. */
function runsAlongRow(pixels: Pixels, y: number): [number, number][] {
  const runs: [number, number][] = [];
  for (let x = 0; x < pixels.width; x += 1) {
    if (!differs(pixelAt(pixels, x, y), WHITE)) continue;
    const run = runs.at(-1);
    if (run && run[1] === x - 1) run[1] = x;
    else runs.push([x, x]);
  }
  return runs;
}

/**
 * The three parts on screen, left to right, found along the middle row; the point is 3/8 across and down each, in
 * the middle of a texel of the 4 × 4 texture rather than on a seam between two.
 */
function partsOnScreen(pixels: Pixels): Record<TexturedPart, PartOnScreen> | undefined {
  const middle = Math.floor(pixels.height / 2);
  const runs = runsAlongRow(pixels, middle).filter(([first, last]) => last - first > 10);
  if (runs.length !== 3) return undefined;
  const [seat, back, legs] = runs.map(([left, right]) => {
    const column = Math.round((left + right) / 2);
    let top = middle;
    let bottom = middle;
    while (top > 0 && differs(pixelAt(pixels, column, top - 1), WHITE)) top -= 1;
    while (bottom < pixels.height - 1 && differs(pixelAt(pixels, column, bottom + 1), WHITE)) bottom += 1;
    const x = Math.round(left + ((right - left) * 3) / 8);
    const y = Math.round(top + ((bottom - top) * 3) / 8);
    return { left, right, top, bottom, x, y };
  });
  return { Seat: seat, Back: back, Legs: legs };
}

/** How many pixels outside `part`'s box (and a margin for its anti-aliased edge) differ between `a` and `b`. */
function changedOutside(a: Pixels, b: Pixels, part: PartOnScreen): number {
  const margin = 3;
  return countPixels(b, (rgb, x, y) => {
    const inside =
      x >= part.left - margin &&
      x <= part.right + margin &&
      y >= part.top - margin &&
      y <= part.bottom + margin;
    return !inside && differs(rgb, pixelAt(a, x, y), SAME);
  });
}

/** Sets the element's `variantName` and resolves once it says the variant is applied. */
async function chooseVariant(name: string | null): Promise<void> {
  await page.evaluate(
    (variant) =>
      new Promise<void>((resolve) => {
        const viewer = document.querySelector('model-viewer') as HTMLElement & { variantName: string | null };
        viewer.addEventListener('variant-applied', () => resolve(), { once: true });
        viewer.variantName = variant;
      }),
    name,
  );
}

void describe('material variants in model-viewer', { timeout: 5 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    const glb = await variantsChairGlb();
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 800, height: 400 } });
    const files = {
      '/': { contentType: 'text/html', body: PAGE },
      '/chair.glb': { contentType: 'model/gltf-binary', body: glb },
    };
    origin = await serveMadeUpOrigin(page, ORIGIN, files, ['/@google/model-viewer/']);
    await page.goto(`${ORIGIN}/`);
  });

  after(async () => {
    await browser?.close();
  });

  void test('it lists the configurations, and each variant repaints its part and no other', async () => {
    await page.evaluate(() => (window as unknown as { loaded: Promise<void> }).loaded);
    const variants = await page.evaluate(
      () =>
        (document.querySelector('model-viewer') as HTMLElement & { availableVariants: string[] })
          .availableVariants,
    );
    assert.deepEqual(
      variants,
      PAINTS.map(({ name }) => name),
    );
    await page.waitForFunction(
      () =>
        (document.querySelector('model-viewer') as HTMLElement & { modelIsVisible: boolean }).modelIsVisible,
      undefined,
      { timeout: RENDER_WAIT_MS },
    );
    const plain = await untilSettled(
      (pixels) => partsOnScreen(pixels) !== undefined,
      'the three parts drawn',
    );
    if (SHOTS) await page.screenshot({ path: join(SHOTS, 'model-viewer-default.png') });
    const parts = partsOnScreen(plain)!;
    for (const { name } of PAINTS) {
      for (const [part, { x, y }] of Object.entries(parts))
        assert.equal(
          IS_PAINTED[name](pixelAt(plain, x, y)),
          false,
          `${part} is not yet as ${name} paints it`,
        );
    }

    // Each variant straight after the one before: a part the chosen variant does not paint goes back to its
    // default (the file maps it there in every variant that leaves it), so every other pixel is the model's own.
    for (const { name, part } of PAINTS) {
      await chooseVariant(name);
      const { x, y } = parts[part];
      const shown = await untilSettled(
        (pixels) =>
          IS_PAINTED[name](pixelAt(pixels, x, y)) &&
          Object.entries(parts).every(
            ([other, at]) =>
              other === part || !differs(pixelAt(pixels, at.x, at.y), pixelAt(plain, at.x, at.y), SAME),
          ),
        `${name} on screen and the other parts as the model paints them`,
      );
      if (SHOTS) await page.screenshot({ path: join(SHOTS, `model-viewer-${part.toLowerCase()}.png`) });
      assert.ok(differs(pixelAt(shown, x, y), pixelAt(plain, x, y), SAME), `${name} changes the ${part}`);
      assert.equal(changedOutside(plain, shown, parts[part]), 0, `${name} changes no pixel off the ${part}`);
    }
    await chooseVariant(null);
    const back = await untilSettled(
      (pixels) =>
        Object.values(parts).every(
          (at) => !differs(pixelAt(pixels, at.x, at.y), pixelAt(plain, at.x, at.y), SAME),
        ),
      'every part as the model paints it with no variant',
    );
    const changed = countPixels(back, (rgb, x, y) => differs(rgb, pixelAt(plain, x, y), SAME));
    assert.equal(changed, 0, 'no variant draws the model as before');
    assert.deepEqual(origin.outside, [], 'the page asked for nothing from elsewhere');
  });
});
