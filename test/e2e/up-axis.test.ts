// The details form's up axis in headless Chromium against a real server: a Z-up OBJ lies on its side, is set to
// Z up in the form, is converted again by itself and then stands upright in the view.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ModelRecord } from './support/catalog-client.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { decodePng, differs, pixelAt, type Pixels } from './support/pixels.ts';
import type { RunningServer } from './support/server-process.ts';
import {
  CANVAS_EDGE,
  openViewerSession,
  SHOTS,
  VIEW_BACKGROUND,
  viewShot,
  type ViewerSession,
} from './support/viewer-session.ts';
import { zUpHouseObj } from '../fixtures/z-up-house.ts';

const TOKEN = 'e2e-up-axis-token-0123456789';

let session: ViewerSession;
let server: RunningServer;
let page: Page;
let client: ViewerSession['client'];
let model: ModelRecord;

/** Width and height of the box around everything the view drew that is not background. */
function drawnSize(pixels: Pixels): { width: number; height: number } {
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = CANVAS_EDGE; y < pixels.height - CANVAS_EDGE; y += 1) {
    for (let x = CANVAS_EDGE; x < pixels.width - CANVAS_EDGE; x += 1) {
      if (!differs(pixelAt(pixels, x, y), VIEW_BACKGROUND)) continue;
      [minX, minY, maxX, maxY] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y)];
    }
  }
  assert.ok(maxX >= minX, 'the view drew the model');
  return { width: maxX - minX + 1, height: maxY - minY + 1 };
}

/** The drawn size once the view has loaded its model and drawn a frame or two. */
async function viewedSize(name: string): Promise<{ width: number; height: number }> {
  return drawnSize(await decodePng(await viewShot(page, name)));
}

void describe(
  'up axis in the details form end to end',
  { timeout: 5 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      session = await openViewerSession('up-axis', TOKEN);
      ({ server, page, client } = session);
      const uploaded = await client.upload({
        name: 'house.obj',
        bytes: new TextEncoder().encode(zUpHouseObj()),
      });
      model = await client.waitCompleted(uploaded.id);
    });

    after(() => session?.close());

    void test('a Z-up OBJ set to Z up in the details form is converted again and stands upright', async () => {
      await page.goto(`${server.baseUrl}/#/models/${model.id}`);
      const lying = await viewedSize('house-lying');
      // Read Y-up, the 14-unit height runs along the depth and the house is wider than tall on screen.
      assert.ok(lying.height < lying.width, `lying house drawn ${lying.width}×${lying.height}`);

      // The details form is on the Details tab beside the view.
      await page.getByRole('tab', { name: 'Details' }).click();
      const thumbnail = page.locator('.model-details .thumb img');
      const lyingThumbnail = await thumbnail.getAttribute('src');
      const up = page.getByLabel('Up axis');
      assert.equal(await up.inputValue(), 'y');
      await up.selectOption('z');
      await page.getByLabel('Unit').selectOption('cm');
      await page.getByRole('button', { name: 'Save details' }).click();
      // The page follows the new conversion and opens the model again when it is done.
      await page.locator('.viewer[data-state="ready"]').waitFor({ state: 'detached', timeout: 30_000 });
      const upright = await viewedSize('house-upright');
      assert.ok(upright.height > upright.width, `upright house drawn ${upright.width}×${upright.height}`);
      assert.equal(await page.getByLabel('Up axis').inputValue(), 'z');
      assert.equal(await page.getByLabel('Unit').inputValue(), 'cm');
      // The details show the thumbnail the new conversion rendered.
      assert.notEqual(await thumbnail.getAttribute('src'), lyingThumbnail);
      // The page was built afresh for the new conversion, on its first tab.
      await page.getByRole('tab', { name: 'Details' }).click();
      if (SHOTS)
        await page
          .locator('.model-details')
          .screenshot({ path: join(SHOTS, 'details.png'), timeout: 120_000 });

      const record = (await (await client.call(`/api/models/${model.id}`)).json()).data as {
        up: string;
        unit: string;
        bounds: { min: number[]; max: number[] };
      };
      assert.equal(record.up, 'z');
      const size = record.bounds.max.map((max, axis) => max - record.bounds.min[axis]);
      assert.equal(size.indexOf(Math.max(...size)), 1, `bounds ${JSON.stringify(record.bounds)}`);
      assert.deepEqual(session.pageErrors, []);
    });
  },
);
