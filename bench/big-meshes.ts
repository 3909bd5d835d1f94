// Converts generated STL, PLY and OBJ meshes of 1 M and 4 M triangles (BIG_MESH_TRIANGLES overrides the sizes) with
// Vitrine's pipeline and with Debian's native `assimp export`, side by side in one run, each in its own process:
// wall time, the ratio, and the peak RSS growth per source triangle. assimp-utils is installed with apt-get when
// missing (the reference only; Vitrine never uses it).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const sizes = (process.env.BIG_MESH_TRIANGLES ?? '1000000,4000000').split(',').map(Number);
const formats = (process.env.BIG_MESH_FORMATS ?? 'stl,ply,obj').split(',');

if (process.argv[2] === '--convert') {
  // Child: one conversion, reporting time and memory.
  const { convertModel } = await import('../src/pipeline/convert-model.ts');
  const file = process.argv[3];
  const idle = process.memoryUsage().rss;
  const started = performance.now();
  const result = await convertModel({
    modelId: 'bench',
    source: { file, dir: path.dirname(file), format: path.extname(file).slice(1) as 'stl' | 'ply' | 'obj' },
  });
  const ms = performance.now() - started;
  const peak = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(
    JSON.stringify({
      ms,
      idle,
      peak,
      triangles: result.triangle_count,
      lods: result.lods.map((l) => l.triangle_count),
    }),
  );
  process.exit(0);
}

/** A closed grid surface (a torus) of about `triangles` triangles: shared vertices, like a scanned mesh. */
function torus(triangles: number): { positions: Float32Array; indices: Uint32Array } {
  const around = Math.round(Math.sqrt(triangles / 2) * 2);
  const tube = Math.round(triangles / 2 / around);
  const positions = new Float32Array(around * tube * 3);
  for (let i = 0; i < around; i++) {
    const u = (i / around) * Math.PI * 2;
    for (let j = 0; j < tube; j++) {
      const v = (j / tube) * Math.PI * 2;
      const at = (i * tube + j) * 3;
      positions[at] = (1 + 0.3 * Math.cos(v)) * Math.cos(u);
      positions[at + 1] = 0.3 * Math.sin(v);
      positions[at + 2] = (1 + 0.3 * Math.cos(v)) * Math.sin(u);
    }
  }
  const indices = new Uint32Array(around * tube * 6);
  let k = 0;
  for (let i = 0; i < around; i++) {
    for (let j = 0; j < tube; j++) {
      const a = i * tube + j;
      const b = ((i + 1) % around) * tube + j;
      const c = ((i + 1) % around) * tube + ((j + 1) % tube);
      const d = i * tube + ((j + 1) % tube);
      indices.set([a, b, c, a, c, d], k);
      k += 6;
    }
  }
  return { positions, indices };
}

function writeStl(file: string, mesh: ReturnType<typeof torus>): void {
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

function writePly(file: string, mesh: ReturnType<typeof torus>): void {
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
function writeObj(file: string, mesh: ReturnType<typeof torus>): void {
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

function timeVitrine(file: string): {
  ms: number;
  growthPerTriangle: number;
  triangles: number;
  lods: number[];
} {
  const child = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--convert', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(child.stderr);
  const report = JSON.parse(child.stdout) as {
    ms: number;
    idle: number;
    peak: number;
    triangles: number;
    lods: number[];
  };
  return {
    ms: report.ms,
    growthPerTriangle: (report.peak - report.idle) / report.triangles,
    triangles: report.triangles,
    lods: report.lods,
  };
}

ensureAssimp();
const dir = mkdtempSync(path.join(os.tmpdir(), 'vitrine-big-'));
try {
  console.log(
    '| mesh | file MB | Vitrine s | native assimp s | ratio | peak RSS growth B/triangle | LOD triangles |',
  );
  console.log(
    '| ---- | ------- | --------- | --------------- | ----- | -------------------------- | ------------- |',
  );
  for (const size of sizes) {
    const mesh = torus(size);
    for (const format of formats) {
      const file = path.join(dir, `torus-${size}.${format}`);
      if (format === 'stl') writeStl(file, mesh);
      else if (format === 'obj') writeObj(file, mesh);
      else writePly(file, mesh);
      const megabytes =
        (spawnSync('stat', ['-c', '%s', file], { encoding: 'utf8' }).stdout.trim() as unknown as number) /
        1e6;
      // Interleaved: native, Vitrine, native; the native time is the mean of its two runs.
      const native1 = timeNative(file, path.join(dir, 'out.glb'));
      const vitrine = timeVitrine(file);
      const native2 = timeNative(file, path.join(dir, 'out.glb'));
      const native = (native1 + native2) / 2;
      console.log(
        `| ${format.toUpperCase()} ${(vitrine.triangles / 1e6).toFixed(1)} M | ${megabytes.toFixed(0)} | ${(vitrine.ms / 1000).toFixed(2)} | ` +
          `${(native / 1000).toFixed(2)} | ${(vitrine.ms / native).toFixed(2)} | ${vitrine.growthPerTriangle.toFixed(0)} | ${vitrine.lods.join(' / ')} |`,
      );
      rmSync(file);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
