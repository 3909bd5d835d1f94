// Runs every benchmark one after another (never side by side: the machine has two cores) and prints their tables.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const BENCHMARKS = [
  'app-build.ts',
  'materials.ts',
  'configured-lookup.ts',
  'lods.ts',
  'lod-ladder.ts',
  'import.ts',
  'part-stages.ts',
  'batched-lods.ts',
  'batched-thumbnail.ts',
  'tiled-thumbnail.ts',
  'first-thumbnail.ts',
  'render.ts',
  'tus-upload.ts',
  'big-meshes.ts',
  'tiles.ts',
  'tiles-first-frame.ts',
  'tiles-validator.ts',
  'pool.ts',
  'scale-out.ts',
  'json-bodies.ts',
  'part-properties.ts',
  'many-parts.ts',
  'part-rows.ts',
  'completion-latency.ts',
  'soak.ts',
];
const only = process.argv.slice(2);
const selected = only.length
  ? BENCHMARKS.filter((file) => only.some((name) => file.startsWith(name)))
  : BENCHMARKS;

let failed = 0;
for (const file of selected) {
  process.stdout.write(`\n## bench/${file}\n\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, file)], {
    stdio: 'inherit',
    env: process.env,
  });
  if (result.status !== 0) {
    failed++;
    process.stderr.write(`bench/${file} exited with ${result.status ?? result.signal}\n`);
  }
}
process.exit(failed ? 1 : 0);
