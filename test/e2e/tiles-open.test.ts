// Streamed opening in headless Chromium: a model of 4 M triangles in four parts (made at test time) gets a 3D
// Tiles tileset, and the model page draws its first frame of tiles after at most 2 MB of tile bytes, a fifth of
// LOD 0's at most (the same page shows LOD 0 whole with `?level=0`; both are timed for the record); a part picked
// in the tiles is the part the catalog names, and a material bound to it paints it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { skipWithoutChromium } from './support/chromium.ts';
import { recordFirstFrame, settleView, timeToFirstFrame } from './support/first-frame.ts';
import { countPixels, decodePng, isRed, pixelAt } from './support/pixels.ts';
import { writeRingParts } from './support/ring-parts.ts';
import { openViewerSession, SHOTS, type ViewerSession } from './support/viewer-session.ts';

const TOKEN = 'e2e-tiles-token-0123456789abcdef';
/** Four rings of 1000 × 500 × 2 = 1 M triangles each. */
const PARTS = 4;
const AROUND = 1000;
const TUBE = 500;
/** Tile bytes the first frame may cost. */
const FIRST_FRAME_BYTES = 2_000_000;

let session: ViewerSession;
let modelId: string;

void describe('tiled models end to end', { timeout: 30 * 60_000, skip: skipWithoutChromium }, () => {
  before(async () => {
    session = await openViewerSession('tiles', TOKEN);
    const folder = await mkdtemp(join(tmpdir(), 'vitrine-e2e-rings-'));
    try {
      const file = join(folder, 'rings.glb');
      await writeRingParts(file, PARTS, AROUND, TUBE);
      const uploaded = await session.client.upload(file);
      modelId = (await session.client.waitCompleted(uploaded.id, 20 * 60_000)).id;
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    await session.page.context().addInitScript(recordFirstFrame);
  });

  after(async () => {
    await session?.close();
  });

  void test('the first frame of tiles costs ≤ 2 MB and a fifth of LOD 0 at most', async () => {
    const { page, client } = session;
    const model = (
      (await (await client.call(`/api/models/${modelId}`)).json()) as {
        data: { tileset_url: string | null; triangle_count: number; lods: { size: number }[] };
      }
    ).data;
    assert.equal(model.triangle_count, PARTS * AROUND * TUBE * 2);
    assert.ok(model.tileset_url, 'a model above the threshold has a tileset');
    const address = `${session.server.baseUrl}/#/models/${modelId}`;
    // Timed for the record only (tests check correctness, bench/tiles.ts measures speed).
    const tiles = await timeToFirstFrame(page, address, 'tiles');
    const firstBytes = Number(await page.locator('.viewer').getAttribute('data-tile-bytes'));
    const triangles = Number(await page.locator('.viewer').getAttribute('data-triangles'));
    // The page fetched the tileset and its root tile ahead of the tile renderer, which took those replies.
    const fetched = await page.evaluate(() =>
      performance.getEntriesByType('resource').map((entry) => new URL(entry.name).pathname),
    );
    const marks = await page.evaluate(() => performance.getEntriesByType('mark').map((entry) => entry.name));
    // The tiles page's leftover drawing would otherwise hold the LOD 0 page's start (its WebGL context).
    await settleView(page);
    const whole = await timeToFirstFrame(page, `${address}?level=0`, '0');
    console.log(
      `tiles: first frame at ${Math.round(tiles)} ms, ${triangles} triangles after ${firstBytes} bytes; ` +
        `LOD 0 whole (${model.lods[0].size} bytes) at ${Math.round(whole)} ms`,
    );
    assert.ok(
      firstBytes > 0 && firstBytes <= FIRST_FRAME_BYTES,
      `first frame after ${firstBytes} tile bytes`,
    );
    assert.ok(
      firstBytes <= 0.2 * model.lods[0].size,
      `${firstBytes} tile bytes against LOD 0's ${model.lods[0].size}`,
    );
    assert.ok(triangles > 0 && triangles <= 65_536 * 8, `the first frame drew ${triangles} triangles`);
    assert.equal(fetched.filter((path) => path.endsWith('/tileset.json')).length, 1, fetched.join('\n'));
    for (const step of ['tileset-requested', 'tileset-arrived', 'root-tile-requested', 'root-tile-arrived']) {
      assert.ok(marks.includes(`vitrine:${step}`), `marked ${step}: ${marks.join(', ')}`);
    }
    const tileFetches = fetched.filter((path) => path.endsWith('.glb'));
    assert.equal(
      new Set(tileFetches).size,
      tileFetches.length,
      `no tile fetched twice: ${tileFetches.join(', ')}`,
    );
  });

  void test('a part picked in the tiles is the catalog part, and its bound material paints it', async () => {
    const { page, client } = session;
    const parts = (
      (await (await client.call(`/api/models/${modelId}/parts`)).json()) as {
        data: { group_id: string; name: string }[];
      }
    ).data;
    assert.equal(parts.length, PARTS);
    const json = { 'Content-Type': 'application/json' };
    const created = await client.call('/api/v1/materials', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ name: 'Red', diffuse_r: 255, diffuse_g: 0, diffuse_b: 0 }),
    });
    const material = ((await created.json()) as { data: { id: number } }).data;
    const painted = parts.find((part) => part.name === 'Ring 1')!;
    const bound = await client.call(`/api/v1/materials/${material.id}/bindings`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ group_ids: [painted.group_id] }),
    });
    assert.equal(bound.status, 200);

    await page.goto('about:blank');
    await page.goto(`${session.server.baseUrl}/#/models/${modelId}`);
    await page
      .locator('.viewer[data-state="ready"][data-lod="tiles"][data-paint="1"]')
      .waitFor({ timeout: 300_000 });
    await page.waitForTimeout(1_000);
    const box = (await page.locator('.viewer canvas').boundingBox())!;
    const png = await page.screenshot({ clip: box });
    if (SHOTS) await writeFile(join(SHOTS, 'tiles-painted.png'), png);
    const pixels = await decodePng(png);
    const red = countPixels(pixels, isRed);
    // One torus of four, framed with the others in the workspace's wide, low view: about 0.5 % of its pixels.
    assert.ok(red > 1_000, `the bound part is drawn red (${red} pixels)`);

    // Click the lowest red pixel of the middle column of red: the near rim of the ring (its centre is a hole).
    let sumX = 0;
    let count = 0;
    countPixels(pixels, (rgb, x) => {
      if (isRed(rgb)) {
        sumX += x;
        count++;
      }
      return false;
    });
    const centreX = Math.round(sumX / count);
    let rimY = -1;
    for (let y = 0; y < pixels.height; y++) if (isRed(pixelAt(pixels, centreX, y))) rimY = y;
    assert.ok(rimY > 3, 'the red ring crosses its own middle column');
    rimY -= 3;
    const scale = box.width / pixels.width;
    await page.mouse.click(box.x + centreX * scale, box.y + rimY * scale);
    await page.locator('.viewer[data-selected="1"]').waitFor();
    assert.equal(await page.locator('.selection-summary').textContent(), `Selected: ${painted.name}`);
  });
});
