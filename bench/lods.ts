// LOD benchmark: Vitrine's conversion pipeline against gltfpack making the same LODs, side by side in one run.
// Run: npx tsx bench/lods.ts            (prints a markdown table)
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Document, Logger } from '@gltf-transform/core';
import { pack } from 'gltfpack';
import { MeshoptSimplifier } from 'meshoptimizer';
import { cleanUp } from '../src/pipeline/clean-up.ts';
import { computeStats } from '../src/pipeline/compute-stats.ts';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { createNodeIO } from '../src/gltf/create-io.ts';
import { extractParts } from '../src/pipeline/extract-parts.ts';
import { importGltf } from '../src/pipeline/import/gltf/import-gltf.ts';
import { makeLods } from '../src/pipeline/lods/make-lods.ts';

const MODELS = fileURLToPath(new URL('../../shared/models/', import.meta.url));
/** Timed runs per model: more for small models, whose few milliseconds are easily disturbed. */
const runsFor = (triangles: number) => Number(process.env.BENCH_RUNS ?? (triangles < 100_000 ? 15 : 3));
const logger = new Logger(Logger.Verbosity.ERROR);

interface Measure {
  /** Whole conversion (ours) or both gltfpack runs, in ms. */
  totalMs: number;
  /** Time spent making LOD 1 + LOD 2, in ms. */
  lodMs: number;
  /** Triangles in LOD 1 and LOD 2. */
  lod1: number;
  lod2: number;
}

/** An indexed UV sphere of about `triangles` triangles, as GLB bytes. */
async function generatedSphere(triangles: number): Promise<Uint8Array> {
  const segments = Math.round(Math.sqrt(triangles));
  const rings = Math.round(triangles / (2 * segments)) + 1;
  const document = new Document().setLogger(logger);
  const buffer = document.createBuffer();
  const row = segments + 1;
  const positions = new Float32Array(row * (rings + 1) * 3);
  const normals = new Float32Array(positions.length);
  for (let ring = 0, i = 0; ring <= rings; ring++) {
    const theta = (ring / rings) * Math.PI;
    for (let segment = 0; segment <= segments; segment++, i += 3) {
      const phi = (segment / segments) * Math.PI * 2;
      // A little relief so the simplifier has real detail to weigh.
      const r = 1 + 0.02 * Math.sin(phi * 12) * Math.sin(theta * 9);
      normals.set([Math.sin(theta) * Math.cos(phi), Math.cos(theta), Math.sin(theta) * Math.sin(phi)], i);
      positions.set([normals[i] * r, normals[i + 1] * r, normals[i + 2] * r], i);
    }
  }
  const indices: number[] = [];
  for (let ring = 0; ring < rings; ring++) {
    for (let segment = 0; segment < segments; segment++) {
      const a = ring * row + segment;
      const b = a + row;
      if (ring !== 0) indices.push(a, b, a + 1);
      if (ring !== rings - 1) indices.push(a + 1, b, b + 1);
    }
  }
  const primitive = document
    .createPrimitive()
    .setAttribute('POSITION', document.createAccessor().setType('VEC3').setArray(positions).setBuffer(buffer))
    .setAttribute('NORMAL', document.createAccessor().setType('VEC3').setArray(normals).setBuffer(buffer))
    .setIndices(document.createAccessor().setArray(new Uint32Array(indices)).setBuffer(buffer));
  const mesh = document.createMesh('Sphere').addPrimitive(primitive);
  document.createScene().addChild(document.createNode('Sphere').setMesh(mesh));
  return (await createNodeIO()).writeBinary(document);
}

/**
 * Our pipeline: the whole conversion, then the LOD stage alone — the same steps convertModel runs
 * before it, untimed, and LOD 1 + 2 made and written as GLB, timed.
 */
async function measureOurs(file: string): Promise<Measure> {
  const source = { file, dir: path.dirname(file), format: 'glb' } as const;
  const start = performance.now();
  await convertModel({ modelId: 'bench', source, logger });
  const totalMs = performance.now() - start;

  const { document } = await importGltf.read(source, { logger });
  document.setLogger(logger);
  await cleanUp(document, {}, { logger });
  extractParts(document, { modelId: 'bench' }, { logger });
  const io = await createNodeIO();
  const counts: number[] = [];
  const lodStart = performance.now();
  for await (const lod of makeLods(
    document,
    { simplifier: MeshoptSimplifier, consumeSource: true },
    { logger },
  )) {
    await io.writeBinary(lod.document);
    counts.push(computeStats(lod.document).triangle_count);
  }
  const lodMs = performance.now() - lodStart;
  return { totalMs, lodMs, lod1: counts[0], lod2: counts[1] };
}

/** gltfpack making the same two levels from the same GLB, in memory, without quantization or compression. */
async function measureGltfpack(input: Uint8Array): Promise<Measure> {
  const files = new Map<string, Uint8Array>([['in.glb', input]]);
  const iface = {
    read: (name: string) => files.get(path.basename(name))!,
    write: (name: string, data: Uint8Array) => void files.set(path.basename(name), data.slice()),
  };
  const counts: number[] = [];
  const start = performance.now();
  for (const ratio of ['0.5', '0.15']) {
    await pack(['-i', 'in.glb', '-o', `out-${ratio}.glb`, '-noq', '-kn', '-ke', '-slb', '-si', ratio], iface);
  }
  const lodMs = performance.now() - start;
  const io = await createNodeIO();
  for (const ratio of ['0.5', '0.15']) {
    counts.push(computeStats(await io.readBinary(files.get(`out-${ratio}.glb`)!)).triangle_count);
  }
  return { totalMs: lodMs, lodMs, lod1: counts[0], lod2: counts[1] };
}

/** The run with the median LOD time. */
function median(measures: Measure[]): Measure {
  return [...measures].sort((a, b) => a.lodMs - b.lodMs)[Math.floor(measures.length / 2)];
}

const scratch = await mkdtemp(path.join(tmpdir(), 'vitrine-bench-'));
try {
  const inputs: [string, string][] = [
    ['CesiumMilkTruck.glb', path.join(MODELS, 'glb/CesiumMilkTruck.glb')],
    ['barrel.glb', path.join(MODELS, 'glb/barrel.glb')],
  ];
  const generated = path.join(scratch, 'sphere-1m.glb');
  await writeFile(generated, await generatedSphere(1_000_000));
  inputs.push(['generated sphere (1 M tris)', generated]);

  const rows: string[] = [];
  for (const [label, file] of inputs) {
    const bytes = new Uint8Array(await readFile(file));
    const source = computeStats(await (await createNodeIO()).readBinary(bytes)).triangle_count;
    // One warm-up each, then alternate so both see the same machine state.
    await measureOurs(file);
    await measureGltfpack(bytes);
    const ours: Measure[] = [];
    const theirs: Measure[] = [];
    for (let run = 0; run < runsFor(source); run++) {
      ours.push(await measureOurs(file));
      theirs.push(await measureGltfpack(bytes));
    }
    const a = median(ours);
    const b = median(theirs);
    const rate = (m: Measure) => (2 * source) / (m.lodMs / 1000);
    const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
    rows.push(
      `| ${label} | ${fmt(source)} | ${fmt(a.totalMs)} | ${fmt(a.lodMs)} | ${fmt(b.lodMs)} | ${fmt(a.lod1)} / ${fmt(a.lod2)} | ${fmt(b.lod1)} / ${fmt(b.lod2)} | ${fmt(rate(a))} | ${fmt(rate(b))} | ${(rate(a) / rate(b)).toFixed(2)} |`,
    );
  }
  console.log(
    `LOD benchmark, median of ${process.env.BENCH_RUNS ?? '15 (3 for the 1 M mesh)'} runs after a warm-up; LOD triangles/s = 2 × LOD 0 triangles / time to make LOD 1 + 2 from LOD 0 (simplify + write both GLBs; gltfpack: parse + simplify + write, twice).`,
  );
  console.log(
    'gltfpack: `-noq -kn -ke -slb -si 0.5` and `-si 0.15`, in memory; ours: convertModel with default options.\n',
  );
  console.log(
    '| model | LOD 0 tris | ours: conversion ms | ours: LOD 1+2 ms | gltfpack: LOD 1+2 ms | ours: LOD 1 / 2 tris | gltfpack: LOD 1 / 2 tris | ours: LOD tris/s | gltfpack: LOD tris/s | ratio |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
} finally {
  await rm(scratch, { recursive: true, force: true });
}
