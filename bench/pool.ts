// Throughput of queued CesiumMilkTruck conversions: a warm in-process loop of convertModel against the pool of
// warm conversion threads at size 1 and 2 (conversion plus thumbnail in the thread), side by side in one run.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertModel } from '../src/pipeline/convert-model.ts';
import type { ImportSource } from '../src/pipeline/types.ts';
import { createConversionPool } from '../src/threads/conversion-pool.ts';

const MODELS = fileURLToPath(new URL('../../shared/models/', import.meta.url));
const source: ImportSource = {
  file: path.join(MODELS, 'glb/CesiumMilkTruck.glb'),
  dir: path.join(MODELS, 'glb'),
  format: 'glb',
};
const JOBS = Number(process.env.POOL_JOBS ?? 10);

async function inProcess(): Promise<number> {
  await convertModel({ modelId: 'warm', source });
  const started = performance.now();
  for (let i = 0; i < JOBS; i++) await convertModel({ modelId: `m${i}`, source });
  return (JOBS / (performance.now() - started)) * 60_000;
}

async function pooled(size: number): Promise<number> {
  const pool = createConversionPool({ size });
  try {
    // Warm every thread once, as a running service's threads are.
    await Promise.all(Array.from({ length: size }, (_, i) => pool.convert({ modelId: `w${i}`, source })));
    const started = performance.now();
    await Promise.all(
      Array.from({ length: JOBS }, (_, i) =>
        pool.convert({ modelId: `m${i}`, source, thumbnailColours: () => Promise.resolve(new Map()) }),
      ),
    );
    return (JOBS / (performance.now() - started)) * 60_000;
  } finally {
    await pool.close();
  }
}

const loop = await inProcess();
const one = await pooled(1);
const two = await pooled(2);
console.log('| run | models/min | ratio |');
console.log('| --- | ---------- | ----- |');
console.log(`| warm in-process loop (no thumbnail) | ${loop.toFixed(0)} | 1.00 |`);
console.log(
  `| pool, WORKER_CONCURRENCY=1, with thumbnail | ${one.toFixed(0)} | ${(one / loop).toFixed(2)} of the loop |`,
);
console.log(
  `| pool, WORKER_CONCURRENCY=2, with thumbnail | ${two.toFixed(0)} | ${(two / one).toFixed(2)} × concurrency 1 |`,
);
