// The tiled model's first frame against LOD 0's at 20 M triangles on a throttled link: four rings side by side
// (BENCH_FIRST_FRAME_TRIANGLES in all, 20,000,000 unless set), made at run time as the tiles e2e makes its 4 M, are
// uploaded to a server of their own and converted (LODs and a 3D Tiles tileset); then one Chromium page, its link
// held to BENCH_LINK_MBPS (50 Mbit/s unless set) down and up with BENCH_LINK_LATENCY_MS (20 ms) of latency and its
// cache off, opens the model page streamed (tiles) and the same page showing LOD 0 whole (`?level=0`), one after the
// other in one run. The rings' surfaces carry a scan's noise of up to BENCH_ROUGHNESS metres (0.0005 unless set;
// 0 for smooth rings): a smooth torus compresses to about a byte a triangle, far below what scanned meshes weigh.
// Measured: milliseconds from navigation to the first frame with geometry (the canvas's `data-drawn`) for each,
// their ratio (goal ≤ 0.1), and the tile bytes and triangles behind the tiles' first frame; each page's timeline
// (its `vitrine:` performance marks and its requests) goes to stderr. Between the two pages the tiles page is given
// 3 s and a pixel read back, so its leftover drawing does not hold up the LOD 0 page's start. With
// BENCH_FIRST_FRAME_ROUNDS=n the pair is opened n times on the one conversion, a row each.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  pageTimeline,
  recordFirstFrame,
  settleView,
  timeToFirstFrame,
} from '../test/e2e/support/first-frame.ts';
import { writeRingParts } from '../test/e2e/support/ring-parts.ts';
import { openViewerSession } from '../test/e2e/support/viewer-session.ts';

const TOKEN = 'bench-tiles-first-frame-0123456789';
const PARTS = 4;
const triangles = Number(process.env.BENCH_FIRST_FRAME_TRIANGLES ?? 20_000_000);
const linkMbps = Number(process.env.BENCH_LINK_MBPS ?? 50);
const latencyMs = Number(process.env.BENCH_LINK_LATENCY_MS ?? 20);
const roughness = Number(process.env.BENCH_ROUGHNESS ?? 0.0005);
/** How many times the two pages are opened, one after the other, on the one converted model. */
const rounds = Number(process.env.BENCH_FIRST_FRAME_ROUNDS ?? 1);
/** A ring of `2 × tube × tube × 2` triangles: a quarter of the asked count, as near as a grid gives. */
const tube = Math.round(Math.sqrt(triangles / PARTS / 4));
const around = 2 * tube;
/** How long one view may take to draw: LOD 0 of 20 M triangles is hundreds of megabytes through the link. */
const VIEW_TIMEOUT_MS = 30 * 60_000;

const started = performance.now();
const say = (line: string) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0)} s] ${line}\n`);

const session = await openViewerSession('bench-first-frame', TOKEN, {
  // A conversion of 20 M triangles outgrows the defaults (10 minutes, 4 GiB).
  env: { CONVERSION_TIMEOUT_SECONDS: '7200', CONVERSION_MAX_MEMORY_MB: '16384' },
});
try {
  const folder = await mkdtemp(join(tmpdir(), 'vitrine-bench-rings-'));
  let modelId: string;
  let converting: number;
  try {
    const file = join(folder, 'rings.glb');
    await writeRingParts(file, PARTS, around, tube, { roughness });
    say(`wrote ${PARTS} rings of ${around} × ${tube} × 2 triangles, ${roughness * 1000} mm rough`);
    const uploaded = await session.client.upload(file);
    converting = performance.now();
    say('uploaded; converting');
    modelId = (await session.client.waitCompleted(uploaded.id, 2 * 3600_000)).id;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
  const convertedIn = (performance.now() - converting) / 1000;
  say(`converted in ${convertedIn.toFixed(0)} s`);
  const model = (
    (await (await session.client.call(`/api/models/${modelId}`)).json()) as {
      data: { tileset_url: string | null; triangle_count: number; lods: { level: number; size: number }[] };
    }
  ).data;
  if (!model.tileset_url) throw new Error('the model has no tileset');
  // The list is in the order the levels were stored, not by level.
  const lod0Size = model.lods.find((lod) => lod.level === 0)!.size;

  const { page } = session;
  await page.context().addInitScript(recordFirstFrame);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  const bytesPerSecond = (linkMbps * 1e6) / 8;
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: latencyMs,
    downloadThroughput: bytesPerSecond,
    uploadThroughput: bytesPerSecond,
  });

  const address = `${session.server.baseUrl}/#/models/${modelId}`;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  console.log(
    '| round | triangles | surface noise | link | conversion | tiles: first frame | tile bytes, triangles drawn | LOD 0: first frame | LOD 0 bytes | ratio (goal ≤ 0.1) |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (let round = 1; round <= rounds; round++) {
    const tiles = await timeToFirstFrame(page, address, 'tiles', VIEW_TIMEOUT_MS);
    const tileBytes = Number(await page.locator('.viewer').getAttribute('data-tile-bytes'));
    const tileTriangles = Number(await page.locator('.viewer').getAttribute('data-triangles'));
    say(`round ${round}, tiles: first frame at ${Math.round(tiles)} ms; the page's timeline:`);
    for (const line of await pageTimeline(page)) say(`  ${line}`);
    // The tiles page's leftover drawing would otherwise hold the LOD 0 page's start (its WebGL context).
    await settleView(page);
    const whole = await timeToFirstFrame(page, `${address}?level=0`, '0', VIEW_TIMEOUT_MS);
    say(`round ${round}, LOD 0: first frame at ${Math.round(whole)} ms; the page's timeline:`);
    for (const line of await pageTimeline(page)) say(`  ${line}`);
    await settleView(page);
    console.log(
      `| ${round} | ${model.triangle_count.toLocaleString('en')} | ${roughness * 1000} mm | ${linkMbps} Mbit/s, ${latencyMs} ms | ${convertedIn.toFixed(0)} s | ` +
        `${(tiles / 1000).toFixed(2)} s | ${mb(tileBytes)}, ${tileTriangles.toLocaleString('en')} | ` +
        `${(whole / 1000).toFixed(2)} s | ${mb(lod0Size)} | ${(tiles / whole).toFixed(3)} |`,
    );
  }
} finally {
  await session.close();
}
