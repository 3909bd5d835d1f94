// Tiling against the LOD pipeline alone on the same big STL: a generated torus of BENCH_TILES_TRIANGLES triangles
// (2,000,000 unless set) is converted twice, each time in a fresh process of its own, once as every model is
// (levels of detail) and once with a 3D Tiles tileset too (TILES_ABOVE_TRIANGLES=0): wall time and its ratio,
// processor time and its ratio (others' work on a shared machine stretches it far less than wall time), the tiling
// stage alone, peak RSS growth per source triangle, the tileset's files and bytes, and the bytes a 3D Tiles viewer
// fetches before its first frame (tileset.json and the root tile) against what the viewer fetches for the levels
// (LOD 2 first, LOD 0 at last).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { peakRssBytes } from '../src/pipeline/peak-rss.ts';
import { torus, writeBinaryStl } from '../test/pipeline/torus.ts';

/** What a child reports of one conversion. */
interface ChildReport {
  ms: number;
  /** Processor time of the whole conversion (every thread of the process), which others' work does not stretch. */
  cpuMs: number;
  /** Time of the tiling stage alone (0 without tiles). */
  tilesMs: number;
  /** Processor time of the tiling stage alone. */
  tilesCpuMs: number;
  idle: number;
  peak: number;
  triangles: number;
  lodBytes: number[];
  tileset: { tile_count: number; size: number; leaf_triangles: number } | null;
  /** tileset.json and the root tile's bytes: what a viewer needs before it draws anything. */
  firstFrameBytes: number;
}

/** Sets this process's peak resident memory (`VmHWM`) to its present size, where Linux allows it. */
function resetPeakRss(): void {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // Elsewhere the peak stays the process's lifetime peak: the growth is overstated, never understated.
  }
}

if (process.argv[2] === '--convert') {
  const [, , , file, mode, outDir] = process.argv;
  const { convertModel } = await import('../src/pipeline/convert-model.ts');
  const files = new Map<string, number>();
  const tiles =
    mode === 'tiles'
      ? {
          aboveTriangles: 0,
          onFile: async (relative: string, bytes: Uint8Array) => {
            const target = path.join(outDir!, relative);
            await mkdir(path.dirname(target), { recursive: true });
            await writeFile(target, bytes);
            files.set(relative, bytes.byteLength);
          },
        }
      : undefined;
  const idle = process.memoryUsage().rss;
  resetPeakRss();
  let tilesStarted = 0;
  let tilesEnded = 0;
  let tilesCpuStarted = 0;
  let tilesCpuEnded = 0;
  const cpuNow = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const cpuStarted = cpuNow();
  const started = performance.now();
  const result = await convertModel({
    modelId: 'bench',
    source: { file: file!, dir: path.dirname(file!), format: 'stl' },
    compressLods: 'meshopt',
    tiles,
    onProgress: (_percent, stage) => {
      if (stage === 'tiles' && !tilesStarted) {
        tilesStarted = performance.now();
        tilesCpuStarted = cpuNow();
      }
      if (stage === 'write' && tilesStarted && !tilesEnded) {
        tilesEnded = performance.now();
        tilesCpuEnded = cpuNow();
      }
    },
  });
  const ms = performance.now() - started;
  const cpuMs = cpuNow() - cpuStarted;
  const report: ChildReport = {
    ms,
    cpuMs,
    tilesMs: tilesStarted ? (tilesEnded || performance.now()) - tilesStarted : 0,
    tilesCpuMs: tilesStarted ? (tilesCpuEnded || cpuNow()) - tilesCpuStarted : 0,
    idle,
    peak: peakRssBytes(),
    triangles: result.triangle_count,
    lodBytes: result.lods.map((lod) => lod.glb.byteLength),
    tileset: result.tileset,
    firstFrameBytes: (files.get('tileset.json') ?? 0) + (files.get('tiles/0.glb') ?? 0),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.exit(0);
}

const triangles = Number(process.env.BENCH_TILES_TRIANGLES ?? 2_000_000);
const runs = Number(process.env.BENCH_RUNS ?? 1);
const dir = mkdtempSync(path.join(os.tmpdir(), 'vitrine-bench-tiles-'));
try {
  // A torus of `around × tube × 2` triangles: as near the asked count as a square grid gives.
  const side = Math.round(Math.sqrt(triangles / 2));
  const stl = path.join(dir, 'torus.stl');
  await writeBinaryStl(stl, torus(side, side));
  const child = (mode: 'lods' | 'tiles'): ChildReport => {
    const outDir = path.join(dir, `out-${mode}`);
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', import.meta.filename, '--convert', stl, mode, outDir],
      { encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    if (run.status !== 0) throw new Error(`${mode} run failed: ${run.stderr}`);
    rmSync(outDir, { recursive: true, force: true });
    return JSON.parse(run.stdout.trim().split('\n').at(-1)!) as ChildReport;
  };
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  console.log(
    `| run | triangles | LODs alone | LODs + tiles | ratio (goal ≤ 1.5) | processor time, LODs alone / + tiles (ratio) | tiling stage, wall / processor | peak RSS / triangle, LODs / with tiles (goal ≤ 120 B) | tiles, bytes | first frame: tileset.json + root tile | LOD 2 / LOD 0 |`,
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (let run = 1; run <= runs; run++) {
    const lods = child('lods');
    const tiled = child('tiles');
    const perTriangle = (report: ChildReport) => ((report.peak - report.idle) / report.triangles).toFixed(0);
    console.log(
      `| ${run} | ${lods.triangles.toLocaleString('en')} | ${(lods.ms / 1000).toFixed(1)} s | ` +
        `${(tiled.ms / 1000).toFixed(1)} s | ${(tiled.ms / lods.ms).toFixed(2)} | ` +
        `${(lods.cpuMs / 1000).toFixed(1)} s / ${(tiled.cpuMs / 1000).toFixed(1)} s (${(tiled.cpuMs / lods.cpuMs).toFixed(2)}) | ` +
        `${(tiled.tilesMs / 1000).toFixed(1)} s / ${(tiled.tilesCpuMs / 1000).toFixed(1)} s | ` +
        `${perTriangle(lods)} / ${perTriangle(tiled)} B | ` +
        `${tiled.tileset?.tile_count ?? 0}, ${mb(tiled.tileset?.size ?? 0)} | ${mb(tiled.firstFrameBytes)} | ` +
        `${mb(lods.lodBytes[2] ?? 0)} / ${mb(lods.lodBytes[0] ?? 0)} |`,
    );
    if (tiled.tileset?.leaf_triangles !== tiled.triangles)
      throw new Error(`the leaves hold ${tiled.tileset?.leaf_triangles} of ${tiled.triangles} triangles`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
