// The catalog in headless Chromium against a real server: a material bound to a model's part, through the API,
// shows in the model's catalog thumbnail within 10 s, with no Regenerate and no reload.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { ModelRecord } from './support/catalog-client.ts';
import { skipWithoutChromium } from './support/chromium.ts';
import { countPixels, decodePng, isRed, pixelAt } from './support/pixels.ts';
import type { RunningServer } from './support/server-process.ts';
import { openViewerSession, SHOTS, type ViewerSession } from './support/viewer-session.ts';
import { zUpHouseObj } from '../fixtures/z-up-house.ts';

const TOKEN = 'e2e-thumbnail-refresh-token-0123456789';
const FOLLOW_MS = 10_000;

let session: ViewerSession;
let server: RunningServer;
let page: Page;
let client: ViewerSession['client'];
let model: ModelRecord;

void describe(
  'catalog thumbnails follow bindings end to end',
  { timeout: 5 * 60_000, skip: skipWithoutChromium },
  () => {
    before(async () => {
      session = await openViewerSession('thumbnail-refresh', TOKEN);
      ({ server, page, client } = session);
      const uploaded = await client.upload({
        name: 'house.obj',
        bytes: new TextEncoder().encode(zUpHouseObj()),
      });
      model = await client.waitCompleted(uploaded.id);
    });

    after(() => session?.close());

    void test('a binding change turns the catalog thumbnail red within 10 s', async () => {
      await page.goto(`${server.baseUrl}/#/`);
      const image = page.locator(`.model-card[data-model-id="${model.id}"] .thumb img`);
      await image.waitFor({ timeout: 60_000 });
      const before = await image.getAttribute('src');
      const parts = (await (await client.call(`/api/models/${model.id}/parts`)).json()).data as {
        group_id: string;
      }[];
      const json = { 'Content-Type': 'application/json' };
      const created = await client.call('/api/v1/materials', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ name: 'Red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 }),
      });
      const material = (await created.json()).data as { id: number };

      const boundAt = Date.now();
      const bound = await client.call(`/api/v1/materials/${material.id}/bindings`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ group_ids: [parts[0].group_id] }),
      });
      assert.equal(bound.status, 200);
      await page.waitForFunction(
        ([selector, old]) => document.querySelector(selector)?.getAttribute('src') !== old,
        [`.model-card[data-model-id="${model.id}"] .thumb img`, before] as const,
        { timeout: FOLLOW_MS },
      );
      const took = Date.now() - boundAt;
      assert.ok(took <= FOLLOW_MS, `the catalog showed the new thumbnail after ${took} ms`);
      await image.evaluate((element: HTMLImageElement) => element.decode());
      const png = await image.screenshot({ timeout: 60_000 });
      if (SHOTS) await writeFile(join(SHOTS, 'catalog-thumbnail-red.png'), png);
      const pixels = await decodePng(png);
      const red = countPixels(pixels, (rgb) => isRed(rgb));
      assert.ok(
        red > pixels.width * pixels.height * 0.05,
        `red pixels: ${red}, corner ${pixelAt(pixels, 0, 0)}`,
      );
      assert.deepEqual(session.pageErrors, []);
    });
  },
);
