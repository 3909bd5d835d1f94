// Converts generated STL, PLY and OBJ meshes of 1 M and 4 M triangles (BIG_MESH_TRIANGLES overrides the sizes) with
// Vitrine's pipeline and with Debian's native `assimp export`, side by side in one run, each in its own process:
// wall time, the ratio, the peak RSS growth per source triangle and the longest silence between progress reports.
// Then the STL of each size goes through the service's pool with its thumbnail, once in a warm conversion thread
// and once in a process of its own (as an input above CONVERSION_PROCESS_ABOVE_MB does), measuring the process's RSS
// after the job against its idle RSS, and validating the LODs; BENCH_GIGABYTE=1 adds a 1 GiB binary STL and a
// 500 MB binary PLY to that table (minutes each). assimp-utils is installed with apt-get when missing (the reference
// only; Vitrine never uses it).
import { execFileSync, spawnSync } from 'node:child_process';
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { peakRssBytes } from '../src/pipeline/peak-rss.ts';
import { childPids } from '../test/helpers/child-pids.ts';
import { torus as torusGrid, type TriangleMesh } from '../test/pipeline/torus.ts';
import { writeTinyStl } from '../test/threads/pool-fixtures.ts';

const sizes = (process.env.BIG_MESH_TRIANGLES ?? '1000000,4000000').split(',').map(Number);
const formats = (process.env.BIG_MESH_FORMATS ?? 'stl,ply,obj').split(',');

/** What a child reports of one conversion. */
interface ChildReport {
  ms: number;
  /**
   * RSS before the conversion, and the process's peak RSS; for a pool job, the higher of that and the highest sum of
   * this process's RSS and its conversion process's memory other than mapped files, sampled every 10 ms.
   */
  idle: number;
  peak: number;
  triangles: number;
  lods: number[];
  /** Longest silence between two progress reports. */
  maxGapMs: number;
  /** The two progress reports around that silence, as "stage percent". */
  maxGapAt: string;
  /** Pool runs: RSS once the job is done and its result dropped, after 3 s, and again after a collection. */
  after?: number;
  afterGc?: number;
  thumbnailBytes?: number;
  /** Pool runs: validator errors per LOD. */
  validationErrors?: number[];
}

/**
 * Resident memory of this process's children other than mapped files, in bytes: what a conversion process adds to
 * the machine (its mapped files are Node's own code, which this process maps too). Linux only; 0 elsewhere.
 */
function childrenPrivateRss(): number {
  let bytes = 0;
  try {
    for (const pid of childPids()) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      for (const field of [/^RssAnon:\s+(\d+) kB$/m, /^RssShmem:\s+(\d+) kB$/m])
        bytes += Number(field.exec(status)?.[1] ?? 0) * 1024;
    }
  } catch {
    // A child that ended between two reads, or not Linux.
  }
  return bytes;
}

/** Sets this process's peak resident memory (`VmHWM`) to its present size, where Linux allows it (`clear_refs`). */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Elsewhere the peak stays the process's lifetime peak: the growth is overstated, never understated.
  }
}

if (process.argv[2] === '--convert' || process.argv[2] === '--pool') {
  // Child: one conversion, in process (`--convert`) or through the service's pool of conversion threads with its
  // thumbnail (`--pool`, in a thread or in a process of its own as `process.argv[4]` says), reporting time,
  // memory and the longest progress gap.
  const file = process.argv[3];
  const format = path.extname(file).slice(1) as 'stl' | 'ply' | 'obj';
  const source = { file, dir: path.dirname(file), format };
  let last = performance.now();
  let lastStep = 'start';
  let maxGapMs = 0;
  let maxGapAt = '';
  const onProgress = (percent: number, stage: string): void => {
    const now = performance.now();
    const step = `${stage} ${percent} %`;
    if (now - last > maxGapMs) {
      maxGapMs = now - last;
      maxGapAt = `${lastStep} → ${step}`;
    }
    last = now;
    lastStep = step;
  };
  let report: ChildReport;
  if (process.argv[2] === '--convert') {
    const { convertModel } = await import('../src/pipeline/convert-model.ts');
    const idle = process.memoryUsage().rss;
    const started = performance.now();
    last = started;
    const result = await convertModel({ modelId: 'bench', source, onProgress });
    report = {
      ms: performance.now() - started,
      idle,
      peak: peakRssBytes(),
      triangles: result.triangle_count,
      lods: result.lods.map((l) => l.triangle_count),
      maxGapMs,
      maxGapAt,
    };
  } else {
    const { createConversionPool } = await import('../src/threads/conversion-pool.ts');
    const isolateAboveBytes = process.argv[4] === 'process' ? 0 : Infinity;
    const pool = createConversionPool({ size: 1, isolateAboveBytes });
    // A warm thread, as a running service has, before measuring where the process idles.
    await pool.convert({ modelId: 'warm', source: await writeTinyStl(path.dirname(file), 'tiny.stl') });
    await sleep(1_000);
    const idle = process.memoryUsage().rss;
    // The peak from here on: Linux resets the process's high-water mark to its present size. A conversion process's
    // memory is sampled with this process's every 10 ms, their sum's highest value kept.
    resetPeakRss();
    let sampledPeak = 0;
    const sampler = setInterval(() => {
      sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss() + childrenPrivateRss());
    }, 10);
    const started = performance.now();
    last = started;
    // As the conversion job does: the thread writes the LODs into the job's folder.
    const result = await pool.convert({
      modelId: 'bench',
      source,
      onProgress,
      thumbnailColours: () => Promise.resolve(new Map()),
      lodDir: path.join(path.dirname(file), 'lods'),
    });
    const ms = performance.now() - started;
    clearInterval(sampler);
    const glbs = result.lods.map((lod) => lod.file);
    report = {
      ms,
      idle,
      peak: Math.max(peakRssBytes(), sampledPeak),
      triangles: result.triangle_count,
      lods: result.lods.map((l) => l.triangle_count),
      maxGapMs,
      maxGapAt,
      thumbnailBytes: result.thumbnail?.byteLength ?? 0,
    };
    // What the service holds once the job is stored: its thread replaced if the job grew it.
    await sleep(3_000);
    report.after = process.memoryUsage().rss;
    (globalThis as { gc?: () => void }).gc?.();
    await sleep(500);
    report.afterGc = process.memoryUsage().rss;
    await pool.close();
    const validator = (await import('gltf-validator')).default;
    report.validationErrors = [];
    for (const glb of glbs) {
      const checked = await validator.validateBytes(new Uint8Array(readFileSync(glb)), { maxIssues: 10 });
      report.validationErrors.push(checked.issues.numErrors);
      rmSync(glb);
    }
  }
  process.stdout.write(JSON.stringify(report));
  process.exit(0);
}

/** A closed grid surface (a torus) of about `triangles` triangles: shared vertices, like a scanned mesh. */
function torus(triangles: number): TriangleMesh {
  const around = Math.round(Math.sqrt(triangles / 2) * 2);
  return torusGrid(around, Math.round(triangles / 2 / around));
}

function writeStl(file: string, mesh: TriangleMesh): void {
  const count = mesh.indices.length / 3;
  const fd = openSync(file, 'w');
  const header = Buffer.alloc(84);
  header.writeUInt32LE(count, 80);
  writeSync(fd, header);
  const chunk = Buffer.alloc(50 * 100_000);
  for (let t = 0; t < count; t += 100_000) {
    const n = Math.min(100_000, count - t);
    chunk.fill(0);
    for (let i = 0; i < n; i++) {
      for (let corner = 0; corner < 3; corner++) {
        const v = mesh.indices[(t + i) * 3 + corner] * 3;
        for (let axis = 0; axis < 3; axis++)
          chunk.writeFloatLE(mesh.positions[v + axis], i * 50 + 12 + corner * 12 + axis * 4);
      }
    }
    writeSync(fd, chunk, 0, n * 50);
  }
  closeSync(fd);
}

function writePly(file: string, mesh: TriangleMesh): void {
  const vertices = mesh.positions.length / 3;
  const faces = mesh.indices.length / 3;
  const header = `ply\nformat binary_little_endian 1.0\nelement vertex ${vertices}\nproperty float x\nproperty float y\nproperty float z\nelement face ${faces}\nproperty list uchar int vertex_indices\nend_header\n`;
  const body = Buffer.alloc(vertices * 12 + faces * 13);
  Buffer.from(mesh.positions.buffer).copy(body, 0);
  for (let f = 0; f < faces; f++) {
    const at = vertices * 12 + f * 13;
    body.writeUInt8(3, at);
    body.writeInt32LE(mesh.indices[f * 3], at + 1);
    body.writeInt32LE(mesh.indices[f * 3 + 1], at + 5);
    body.writeInt32LE(mesh.indices[f * 3 + 2], at + 9);
  }
  writeFileSync(file, Buffer.concat([Buffer.from(header), body]));
}

/** ASCII OBJ as scanners and exporters write it: `v x y z` with six decimals, `f a b c` with 1-based indices. */
function writeObj(file: string, mesh: TriangleMesh): void {
  const fd = openSync(file, 'w');
  writeSync(fd, `# torus\no torus\n`);
  const lines: string[] = [];
  const flush = () => {
    writeSync(fd, lines.join(''));
    lines.length = 0;
  };
  for (let at = 0; at < mesh.positions.length; at += 3) {
    const [x, y, z] = [mesh.positions[at], mesh.positions[at + 1], mesh.positions[at + 2]];
    lines.push(`v ${x.toFixed(6)} ${y.toFixed(6)} ${z.toFixed(6)}\n`);
    if (lines.length === 100_000) flush();
  }
  for (let at = 0; at < mesh.indices.length; at += 3) {
    lines.push(`f ${mesh.indices[at] + 1} ${mesh.indices[at + 1] + 1} ${mesh.indices[at + 2] + 1}\n`);
    if (lines.length === 100_000) flush();
  }
  flush();
  closeSync(fd);
}

function ensureAssimp(): void {
  if (spawnSync('assimp', ['version']).status === 0) return;
  execFileSync('apt-get', ['install', '-y', '-qq', 'assimp-utils'], { stdio: 'ignore' });
}

function timeNative(file: string, out: string): number {
  const started = performance.now();
  const result = spawnSync('assimp', ['export', file, out], { stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`assimp export failed on ${file}`);
  return performance.now() - started;
}

/**
 * Runs one conversion in a child process (`--convert` in process, `--pool` through the pool, its job in a `thread`
 * or a `process`) and reads its report.
 */
function runChild(mode: '--convert' | '--pool', file: string, runsIn = 'thread'): ChildReport {
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', import.meta.filename, mode, file, runsIn],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as ChildReport;
}

/** Peak RSS growth per source triangle. */
function perTriangle(report: ChildReport): number {
  return (report.peak - report.idle) / report.triangles;
}

/** Writes the generated mesh of about `triangles` triangles as `format`; returns the file and its size in MB. */
function generate(dir: string, triangles: number, format: string): { file: string; megabytes: number } {
  const mesh = torus(triangles);
  const file = path.join(dir, `torus-${triangles}.${format}`);
  if (format === 'stl') writeStl(file, mesh);
  else if (format === 'obj') writeObj(file, mesh);
  else writePly(file, mesh);
  return { file, megabytes: statSync(file).size / 1e6 };
}

const MB = 1024 * 1024;

/** Two rows of the pool table: a conversion with its thumbnail through the service's pool, in a thread and alone. */
function poolRows(label: string, file: string, megabytes: number): void {
  for (const runsIn of ['thread', 'process']) poolRow(label, file, megabytes, runsIn);
}

/** One row of the pool table: a conversion with its thumbnail through the service's pool. */
function poolRow(label: string, file: string, megabytes: number, runsIn: string): void {
  const report = runChild('--pool', file, runsIn);
  console.log(
    `| ${label} | ${runsIn} | ${megabytes.toFixed(0)} | ${(report.ms / 1000).toFixed(1)} | ${perTriangle(report).toFixed(0)} | ` +
      `${(report.maxGapMs / 1000).toFixed(2)} (${report.maxGapAt}) | ${((report.after! - report.idle) / MB).toFixed(0)} | ` +
      `${((report.afterGc! - report.idle) / MB).toFixed(0)} | ${report.lods.join(' / ')} | ` +
      `${report.validationErrors!.join(' / ')} | ${((report.thumbnailBytes ?? 0) / 1024).toFixed(0)} KiB |`,
  );
}

ensureAssimp();
const dir = mkdtempSync(path.join(os.tmpdir(), 'vitrine-big-'));
try {
  console.log(
    '| mesh | file MB | Vitrine s | native assimp s | ratio | peak RSS growth B/triangle | longest progress gap s | LOD triangles |',
  );
  console.log(
    '| ---- | ------- | --------- | --------------- | ----- | -------------------------- | ---------------------- | ------------- |',
  );
  for (const size of sizes) {
    for (const format of formats) {
      const { file, megabytes } = generate(dir, size, format);
      // Interleaved: native, Vitrine, native; the native time is the mean of its two runs.
      const native1 = timeNative(file, path.join(dir, 'out.glb'));
      const vitrine = runChild('--convert', file);
      const native2 = timeNative(file, path.join(dir, 'out.glb'));
      const native = (native1 + native2) / 2;
      console.log(
        `| ${format.toUpperCase()} ${(vitrine.triangles / 1e6).toFixed(1)} M | ${megabytes.toFixed(0)} | ${(vitrine.ms / 1000).toFixed(2)} | ` +
          `${(native / 1000).toFixed(2)} | ${(vitrine.ms / native).toFixed(2)} | ${perTriangle(vitrine).toFixed(0)} | ` +
          `${(vitrine.maxGapMs / 1000).toFixed(2)} (${vitrine.maxGapAt}) | ${vitrine.lods.join(' / ')} |`,
      );
      rmSync(file);
    }
  }

  // Through the pool, with the thumbnail: RSS of the whole process against its idle RSS with a warm thread.
  console.log('');
  console.log(
    '| pool job | runs in | file MB | s | peak RSS growth B/triangle | longest progress gap s | RSS − idle after 3 s, MiB | after a collection, MiB | LOD triangles | validator errors | thumbnail |',
  );
  console.log(
    '| -------- | ------- | ------- | - | -------------------------- | ---------------------- | ------------------------- | ----------------------- | ------------- | ---------------- | --------- |',
  );
  for (const size of sizes) {
    const stl = generate(dir, size, 'stl');
    poolRows(`STL ${(size / 1e6).toFixed(1)} M`, stl.file, stl.megabytes);
    rmSync(stl.file);
  }
  if (process.env.BENCH_GIGABYTE === '1') {
    // 1 GiB of binary STL records, and 500 MB of binary PLY (12 bytes a vertex, 13 a face, half as many vertices).
    const gigabyte = generate(dir, Math.floor((2 ** 30 - 84) / 50), 'stl');
    poolRows('STL 1 GiB', gigabyte.file, gigabyte.megabytes);
    rmSync(gigabyte.file);
    const ply = generate(dir, Math.floor(500e6 / 19), 'ply');
    poolRows('PLY 500 MB', ply.file, ply.megabytes);
    rmSync(ply.file);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
