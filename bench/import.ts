// Import benchmark: conversion time of the medium non-glTF samples, split by pipeline stage, so the
// dominant stage of each format is named. Every figure is the median of BENCH_RUNS runs (default 5)
// after one warm-up run, whose import time is reported as the cold import (WebAssembly compile).
// Run: npx tsx bench/import.ts            (prints a markdown table)
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Logger } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { cleanUp } from '../src/pipeline/clean-up.ts';
import { computeStats } from '../src/pipeline/compute-stats.ts';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { createNodeIO } from '../src/gltf/create-io.ts';
import { extractParts } from '../src/pipeline/extract-parts.ts';
import { importerFor } from '../src/pipeline/import/importers.ts';
import { makeLods } from '../src/pipeline/lods/make-lods.ts';
import type { ImportSource, ModelFormat } from '../src/pipeline/types.ts';

const MODELS = fileURLToPath(new URL('../../shared/models/', import.meta.url));
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SAMPLES = [
  'ifc/AC14-FZK-Haus.ifc',
  'step/linkrods.step',
  'stl/counter.unitsmm.STL',
  'dae/franka_fer_link0.dae',
];
const STAGES = ['import', 'clean-up', 'parts+stats', 'LODs', 'write'] as const;
type Stage = (typeof STAGES)[number];

const logger = new Logger(Logger.Verbosity.ERROR);
const context = { logger };

function sourceOf(sample: string): ImportSource {
  const file = path.join(MODELS, sample);
  return { file, dir: path.dirname(file), format: path.extname(file).slice(1).toLowerCase() as ModelFormat };
}

/** One conversion, step by step as convertModel runs them, timing each stage. */
async function stagedRun(sample: string): Promise<{ times: Record<Stage, number>; triangles: number }> {
  const source = sourceOf(sample);
  const io = await createNodeIO();
  const times = Object.fromEntries(STAGES.map((stage) => [stage, 0])) as Record<Stage, number>;
  const time = async <T>(stage: Stage, work: () => Promise<T> | T): Promise<T> => {
    const start = performance.now();
    const result = await work();
    times[stage] += performance.now() - start;
    return result;
  };

  const { document } = await time('import', () => importerFor(source.format)!.read(source, context));
  document.setLogger(logger);
  await time('clean-up', () => cleanUp(document, {}, context));
  const stats = await time('parts+stats', () => {
    extractParts(document, { modelId: 'bench' }, context);
    return computeStats(document);
  });
  await time('write', () => io.writeBinary(document));
  const lods = makeLods(document, { simplifier: MeshoptSimplifier }, context)[Symbol.asyncIterator]();
  for (;;) {
    const next = await time('LODs', () => lods.next());
    if (next.done) break;
    await time('write', () => io.writeBinary(next.value.document));
  }
  return { times, triangles: stats.triangle_count };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const ms = (value: number) => `${Math.round(value)}`;

const rows: string[] = [];
for (const sample of SAMPLES) {
  const coldStart = performance.now();
  await importerFor(sourceOf(sample).format)!.read(sourceOf(sample), context);
  const cold = performance.now() - coldStart;

  const runs: Record<Stage, number>[] = [];
  let triangles = 0;
  for (let run = 0; run < RUNS; run++) {
    const result = await stagedRun(sample);
    runs.push(result.times);
    triangles = result.triangles;
  }
  const medians = Object.fromEntries(
    STAGES.map((stage) => [stage, median(runs.map((times) => times[stage]))]),
  ) as Record<Stage, number>;
  const total = STAGES.reduce((sum, stage) => sum + medians[stage], 0);
  const dominant = STAGES.reduce((best, stage) => (medians[stage] > medians[best] ? stage : best));

  const whole: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    await convertModel({ modelId: 'bench', source: sourceOf(sample), logger });
    whole.push(performance.now() - start);
  }

  rows.push(
    `| ${sample} | ${triangles.toLocaleString('en')} | ${ms(cold)} | ${STAGES.map((stage) => ms(medians[stage])).join(' | ')} | ${ms(total)} | ${ms(median(whole))} | ${dominant} (${Math.round((100 * medians[dominant]) / total)} %) |`,
  );
}

console.log(
  `Conversion of medium samples, median of ${RUNS} runs in ms (Node ${process.version}, ${process.platform}/${process.arch})\n`,
);
console.log(
  `| sample | LOD 0 triangles | cold import | ${STAGES.join(' | ')} | sum of stages | convertModel | dominant stage |`,
);
console.log(`|---|---:|---:|${STAGES.map(() => '---:').join('|')}|---:|---:|---|`);
for (const row of rows) console.log(row);
