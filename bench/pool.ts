// Start-up latency and throughput of the conversion service, side by side in one run:
// 1. A 12-triangle model (MultiUVTest.glb) from upload to `completed` through the real app (SQLite, the embedded
//    queue, the pool of conversion threads, the thumbnail), against a bare `node -e 0` process start, interleaved.
// 2. 10 queued CesiumMilkTruck conversions: a warm in-process loop of convertModel plus the same thumbnail render,
//    then the pool at WORKER_CONCURRENCY 1 and 2 with all 10 queued at once, each job converting and rendering
//    its 512×512 thumbnail in the thread (the loop without the thumbnail is shown for reference). The two
//    concurrencies alternate POOL_PAIRS times (3 unless set) and the medians are compared.
// "Warm" is POOL_WARM_JOBS jobs (10 unless set) before the measured ones, for the loop and for every thread: a
// thread serves up to 100 jobs before it is replaced, and V8 optimizes a fresh thread's code on helper threads
// through its first jobs, each thread for itself. One more pair with threads that ran a single job shows a fresh
// thread's cost.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { thumbnailLevel } from '../src/render/thumbnail-level.ts';
import { loadConfig } from '../src/config.ts';
import { startJobRunner } from '../src/job-runner.ts';
import { createLogger } from '../src/logger.ts';
import { convertModel } from '../src/pipeline/convert-model.ts';
import type { ImportSource } from '../src/pipeline/types.ts';
import { renderThumbnail } from '../src/render/render-thumbnail.ts';
import { openServices } from '../src/services.ts';
import { createConversionPool } from '../src/threads/conversion-pool.ts';

const MODELS = fileURLToPath(new URL('../../shared/models/', import.meta.url));
const truck: ImportSource = {
  file: path.join(MODELS, 'glb/CesiumMilkTruck.glb'),
  dir: path.join(MODELS, 'glb'),
  format: 'glb',
};
const JOBS = Number(process.env.POOL_JOBS ?? 10);
const ROUNDS = Number(process.env.LATENCY_ROUNDS ?? 7);
const PAIRS = Number(process.env.POOL_PAIRS ?? 3);
const WARM_JOBS = Number(process.env.POOL_WARM_JOBS ?? 10);
if (!(Number.isInteger(WARM_JOBS) && WARM_JOBS >= 1)) {
  throw new Error(`POOL_WARM_JOBS must be a whole number of 1 or more, not ${process.env.POOL_WARM_JOBS}`);
}
const TOKEN = 'bench-token-0123456789';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** A fresh `node -e 0`: how long this machine takes to start a process that does nothing. */
function bareStart(): number {
  const started = performance.now();
  execFileSync(process.execPath, ['-e', '0']);
  return performance.now() - started;
}

/** Upload → completed of a 12-triangle model through the app, interleaved with bare process starts. */
async function latency(): Promise<{ bare: number[]; model: number[] }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-bench-pool-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: `sqlite://${path.join(dataDir, 'vitrine.sqlite')}`,
    API_TOKEN: TOKEN,
    LOG_LEVEL: 'warn',
  });
  const logger = createLogger(config.logLevel);
  const services = await openServices(config, { logger });
  const app = await buildApp({ config, ...services, apiToken: TOKEN, logger });
  await app.ready();
  const worker = startJobRunner(config, services, logger);
  const glb = fs.readFileSync(path.join(MODELS, 'glb/MultiUVTest.glb'));
  const boundary = 'vitrine-bench-boundary';
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="MultiUVTest.glb"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
    glb,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const headers = { 'x-api-token': TOKEN };
  const upload = async (): Promise<number> => {
    const started = performance.now();
    const created = await app.inject({
      method: 'POST',
      url: '/api/models',
      headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
    if (created.statusCode !== 201) throw new Error(`upload answered ${created.statusCode}`);
    const id = (JSON.parse(created.body) as { data: { id: string } }).data.id;
    // A client polling every 2 ms: the measure is the service's, not the client's interval.
    for (;;) {
      const read = await app.inject({ method: 'GET', url: `/api/models/${id}`, headers });
      const status = (JSON.parse(read.body) as { data: { status: string } }).data.status;
      if (status === 'completed') return performance.now() - started;
      if (status === 'failed') throw new Error('the 12-triangle model failed');
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  };
  try {
    // The first upload starts the pool's thread, as the first job of a service does.
    await upload();
    const bare: number[] = [];
    const model: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(bareStart());
      model.push(await upload());
    }
    return { bare, model };
  } finally {
    await app.close();
    await worker.stop();
    await services.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Models per minute of a warm in-process loop, with or without the thumbnail the pool's jobs render. */
async function inProcess(thumbnail: boolean): Promise<number> {
  const once = async (modelId: string) => {
    const result = await convertModel({ modelId, source: truck });
    if (thumbnail) await renderThumbnail(thumbnailLevel(result.lods).glb);
  };
  for (let i = 0; i < WARM_JOBS; i++) await once(`warm${i}`);
  const started = performance.now();
  for (let i = 0; i < JOBS; i++) await once(`m${i}`);
  return (JOBS / (performance.now() - started)) * 60_000;
}

/** Models per minute of the pool at `size` threads, every job queued at once, each with its thumbnail, after
 * `warmJobs` jobs on every thread; how many threads it started (a thread replaced after a job counts again), and the
 * wall and CPU time (every thread of the process: conversion threads, libvips's, V8's) per job. */
async function pooled(
  size: number,
  warmJobs = WARM_JOBS,
): Promise<{ perMinute: number; threadsStarted: number; wallMsPerJob: number; cpuMsPerJob: number }> {
  const pool = createConversionPool({ size });
  const colours = () => Promise.resolve(new Map());
  try {
    // One job per thread at a time, so that every thread runs `warmJobs` of them.
    for (let round = 0; round < warmJobs; round++) {
      await Promise.all(
        Array.from({ length: size }, (_, i) =>
          pool.convert({ modelId: `w${round}-${i}`, source: truck, thumbnailColours: colours }),
        ),
      );
    }
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await Promise.all(
      Array.from({ length: JOBS }, (_, i) =>
        pool.convert({ modelId: `m${i}`, source: truck, thumbnailColours: colours }),
      ),
    );
    const elapsed = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    return {
      perMinute: (JOBS / elapsed) * 60_000,
      threadsStarted: pool.stats().started,
      wallMsPerJob: elapsed / JOBS,
      cpuMsPerJob: (cpu.user + cpu.system) / 1000 / JOBS,
    };
  } finally {
    await pool.close();
  }
}

const load = () => os.loadavg()[0].toFixed(1);
const loadAtStart = load();
const { bare, model } = await latency();
const loopBare = await inProcess(false);
const loop = await inProcess(true);
// Concurrency 1 and 2 alternate (1, 2, then 2, 1, …), so a neighbour's load that comes and goes falls on both.
const pairs: { one: Awaited<ReturnType<typeof pooled>>; two: Awaited<ReturnType<typeof pooled>> }[] = [];
for (let round = 0; round < PAIRS; round++) {
  if (round % 2 === 0) {
    const one = await pooled(1);
    pairs.push({ one, two: await pooled(2) });
  } else {
    const two = await pooled(2);
    pairs.push({ one: await pooled(1), two });
  }
}
const fresh = { one: await pooled(1, 1), two: await pooled(2, 1) };
const one = median(pairs.map((pair) => pair.one.perMinute));
const two = median(pairs.map((pair) => pair.two.perMinute));
const pairRatios = pairs.map((pair) => pair.two.perMinute / pair.one.perMinute);

console.log(
  `1-minute load average: ${loadAtStart} at the start, ${load()} at the end; ${os.cpus().length} cores`,
);
console.log('');
console.log('| measure | median ms (all rounds) | ratio | goal |');
console.log('| ------- | ---------------------- | ----- | ---- |');
const rounds = (values: number[]) => values.map((value) => value.toFixed(0)).join(', ');
console.log(`| bare \`node -e 0\` | ${median(bare).toFixed(0)} (${rounds(bare)}) | 1.00 | |`);
console.log(
  `| 12-triangle model, upload → completed | ${median(model).toFixed(0)} (${rounds(model)}) | ` +
    `${(median(model) / median(bare)).toFixed(2)} | ≤ 6 |`,
);
console.log('');
console.log(
  `| run (${WARM_JOBS} warm jobs per thread; pool: median of ${PAIRS} alternated runs) | models/min | ratio | goal |`,
);
console.log('| --- | ---------- | ----- | ---- |');
console.log(`| warm in-process loop, no thumbnail | ${loopBare.toFixed(0)} | | |`);
console.log(`| warm in-process loop, with thumbnail | ${loop.toFixed(0)} | 1.00 | |`);
console.log(
  `| pool, WORKER_CONCURRENCY=1, with thumbnail | ${one.toFixed(0)} | ${(one / loop).toFixed(2)} of the loop | ≥ 0.7 |`,
);
console.log(
  `| pool, WORKER_CONCURRENCY=2, with thumbnail | ${two.toFixed(0)} | ${(two / loop).toFixed(2)} of the loop, ` +
    `${(two / one).toFixed(2)} × concurrency 1 | ≥ 1.5 × |`,
);
console.log('');
console.log(
  `Each pair, concurrency 1 / 2 in models/min (2 / 1): ` +
    pairs
      .map(
        (pair, i) =>
          `${pair.one.perMinute.toFixed(0)} / ${pair.two.perMinute.toFixed(0)} (${pairRatios[i]!.toFixed(2)})`,
      )
      .join(', ') +
    `; median of the pairs' ratios ${median(pairRatios).toFixed(2)}.`,
);
const started = (run: 'one' | 'two') => pairs.map((pair) => pair[run].threadsStarted).join(', ');
console.log(
  `Threads started: ${started('one')} at concurrency 1, ${started('two')} at concurrency 2 ` +
    `(for ${JOBS} jobs after the warm-up).`,
);
const perJob = (run: 'one' | 'two') =>
  `${median(pairs.map((pair) => pair[run].wallMsPerJob)).toFixed(0)} ms of wall time and ` +
  `${median(pairs.map((pair) => pair[run].cpuMsPerJob)).toFixed(0)} ms of CPU`;
console.log(`Per job (medians): ${perJob('one')} at concurrency 1, ${perJob('two')} at concurrency 2.`);
console.log(
  `Fresh threads (one job each before): ${fresh.one.perMinute.toFixed(0)} / ${fresh.two.perMinute.toFixed(0)} ` +
    `models/min at concurrency 1 / 2 (${(fresh.two.perMinute / fresh.one.perMinute).toFixed(2)}); CPU per job ` +
    `${fresh.one.cpuMsPerJob.toFixed(0)} / ${fresh.two.cpuMsPerJob.toFixed(0)} ms.`,
);
