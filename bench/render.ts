// Thumbnail benchmark: the CPU renderer against three.js in headless Chromium (browser start
// included), side by side in one run. Usage: npx tsx bench/render.ts [runs]
import { cpus } from 'node:os';
import { renderThumbnailDetailed } from '../src/render/render-thumbnail.ts';
import { GLTF_SAMPLES, readSampleGlb, sphereGlb } from '../test/render/fixtures.ts';
import { decodeRgba, iou, silhouette } from '../test/render/silhouette.ts';
import { launchReference } from '../test/render/three-reference.ts';

const RUNS = Number(process.argv[2] ?? 5);
const BROWSER_RUNS = Math.max(1, Math.ceil(RUNS / 2));
const SIZE = 512;
const LARGE_TRIANGLES = 1_000_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function time<T>(run: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const result = await run();
  return [performance.now() - start, result];
}

const models: [string, Uint8Array][] = [];
for (const sample of GLTF_SAMPLES) models.push([sample, await readSampleGlb(sample)]);
models.push([
  `generated sphere (${LARGE_TRIANGLES.toLocaleString('en')} triangles)`,
  await sphereGlb(LARGE_TRIANGLES),
]);

// One untimed render first so module loading and JIT warm-up are not charged to the first model.
await renderThumbnailDetailed(models[0][1]);

const rows: string[] = [];
for (const [name, glb] of models) {
  const ours: number[] = [];
  let last = await renderThumbnailDetailed(glb);
  for (let i = 0; i < RUNS; i++) {
    const [ms, result] = await time(() => renderThumbnailDetailed(glb));
    ours.push(ms);
    last = result;
  }
  const theirs: number[] = [];
  let pixels: Uint8Array = new Uint8Array();
  for (let i = 0; i < BROWSER_RUNS; i++) {
    const [ms, rgba] = await time(async () => {
      const reference = await launchReference();
      try {
        return await reference.render(glb, last.camera, SIZE, SIZE);
      } finally {
        await reference.close();
      }
    });
    theirs.push(ms);
    pixels = rgba;
  }
  const score = iou(silhouette((await decodeRgba(last.png)).data), silhouette(pixels));
  const cpu = median(ours);
  const browser = median(theirs);
  rows.push(
    `| ${name} | ${last.triangleCount.toLocaleString('en')} | ${last.supersample}×${last.supersample} ` +
      `| ${cpu.toFixed(0)} | ${browser.toFixed(0)} | ${(browser / cpu).toFixed(1)}× | ${score.toFixed(4)} |`,
  );
  console.error(`done: ${name}`);
}

console.log(
  `Thumbnail ${SIZE}×${SIZE}, supersampled as the service does (auto); ` +
    `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, Node ${process.version}.`,
);
console.log(
  `Medians of ${RUNS} CPU renders (GLB bytes → PNG, in-process) and ${BROWSER_RUNS} three.js renders`,
);
console.log('(Chromium start + page + GLTFLoader + WebGL/SwiftShader render + pixels back).');
console.log('');
console.log(
  '| model | triangles | samples | CPU renderer (ms) | three.js in Chromium (ms) | speed-up | silhouette IoU |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(row);
