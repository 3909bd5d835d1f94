// Conversion stages against the number of parts: a generated OBJ of N boxes (one `o` group each, 12 triangles)
// converted in process, stage by stage as convert-model's stage log times them, then the thumbnail, the five
// exports, a second version matched against the first and the part diff. Each count runs in a process of its own,
// so its peak resident set is its own. Tiles are made at every size (the threshold set to 0), so their stage is timed
// even where the service would not tile.
// Run: npx tsx bench/part-stages.ts [counts…] [--repeated]     (default 1000 10000 100000; prints a markdown table)
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Logger } from '@gltf-transform/core';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { diffParts } from '../src/part-diff/diff-parts.ts';
import { renderThumbnail } from '../src/render/render-thumbnail.ts';
import { thumbnailLevel } from '../src/render/thumbnail-level.ts';
import { exportModel } from '../src/writers/export-model.ts';
import type { BoundMaterial } from '../src/writers/bound-material.ts';
import { manyPartsObj } from '../test/fixtures/many-parts-obj.ts';

const COLUMNS = [
  'import',
  'clean-up',
  'parts',
  'LOD 0',
  'LOD 1',
  'LOD 2',
  'tiles',
  'thumbnail',
  'exports',
  'version 2',
  'diff',
  'peak RSS',
] as const;
type Column = (typeof COLUMNS)[number];

/** Which column each line of the stage log adds its time to. */
const STAGE_LINES: [RegExp, Column][] = [
  [/: imported in (\d+) ms/, 'import'],
  [/: cleaned up in (\d+) ms/, 'clean-up'],
  [/: parts listed in (\d+) ms/, 'parts'],
  [/: LOD 0 written in (\d+) ms/, 'LOD 0'],
  [/: LOD 1 (?:made|written) in (\d+) ms/, 'LOD 1'],
  [/: LOD 2 (?:made|written) in (\d+) ms/, 'LOD 2'],
  [/: \d+ tiles written in (\d+) ms/, 'tiles'],
];

const RED: BoundMaterial = {
  id: 1,
  name: 'red',
  diffuse_r: 200,
  diffuse_g: 20,
  diffuse_b: 20,
  alpha: 255,
  specular_r: 0,
  specular_g: 0,
  specular_b: 0,
  metallic: 0,
  roughness: 0.5,
  reflectance: 0.5,
};

/** Converts, renders, exports and versions one generated model; returns its row's figures. */
async function measure(groups: number, repeated: boolean): Promise<Record<Column, number>> {
  const times = Object.fromEntries(COLUMNS.map((column) => [column, 0])) as Record<Column, number>;
  const logger = new Logger(Logger.Verbosity.DEBUG);
  logger.debug = (text: string) => {
    for (const [pattern, column] of STAGE_LINES) {
      const found = pattern.exec(text);
      if (found && text.startsWith('convert-model:')) times[column] += Number(found[1]);
    }
  };
  logger.info = () => {};
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-part-stages-'));
  try {
    const file = path.join(dir, 'model.obj');
    await writeFile(file, manyPartsObj({ groups, kind: repeated ? 'repeated' : 'distinct', shapes: 50 }));
    const source = { file, dir, format: 'obj' as const };
    const result = await convertModel({
      modelId: 'bench',
      source,
      logger,
      compressLods: 'meshopt',
      tiles: { aboveTriangles: 0, onFile: async () => {} },
    });
    const time = async (column: Column, work: () => Promise<unknown>) => {
      const start = performance.now();
      await work();
      times[column] += performance.now() - start;
    };
    const bound = new Map(result.parts.filter((_, i) => i % 2 === 0).map((part) => [part.group_id, RED]));
    const colors = new Map(
      [...bound.keys()].map((id) => [id, { color: [0.6, 0, 0] as [number, number, number], alpha: 1 }]),
    );
    await time('thumbnail', () =>
      renderThumbnail(thumbnailLevel(result.lods).glb, { materialOverrides: colors }),
    );
    for (const format of ['glb', 'obj', 'stl', '3mf', 'usdz'] as const)
      await time('exports', () =>
        exportModel(result.lods[0].glb, { format, bound: [...bound], title: 'bench', unit: 'millimeter' }),
      );
    const previous = result.parts.map(({ group_id, name, path: partPath, fingerprint }) => ({
      group_id,
      name,
      path: partPath,
      fingerprint,
    }));
    let second: typeof result | undefined;
    await time('version 2', async () => {
      second = await convertModel({
        modelId: 'bench',
        previousParts: previous,
        newGroupIdPrefix: 'bench:v2-',
        source,
      });
    });
    const kept = second!.parts.filter((part, i) => part.group_id === result.parts[i].group_id).length;
    if (kept !== groups) throw new Error(`version 2 kept ${kept} of ${groups} group ids`);
    await time('diff', async () => diffParts(previous, second!.parts));
    times['peak RSS'] = process.resourceUsage().maxRSS / 1024;
    return times;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
const repeated = args.includes('--repeated');
const one = args.indexOf('--one');
if (one >= 0) {
  process.stdout.write(JSON.stringify(await measure(Number(args[one + 1]), repeated)));
} else {
  const counts = args.filter((arg) => /^\d+$/.test(arg)).map(Number);
  process.stdout.write(
    `| parts | ${COLUMNS.map((column) => `${column} ${column === 'peak RSS' ? 'MiB' : 's'}`).join(' | ')} |\n`,
  );
  process.stdout.write(`| ---: | ${COLUMNS.map(() => '---:').join(' | ')} |\n`);
  for (const groups of counts.length > 0 ? counts : [1000, 10_000, 100_000]) {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', import.meta.filename, '--one', String(groups), ...(repeated ? ['--repeated'] : [])],
      { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    if (child.status !== 0) throw new Error(`${groups} parts: exited with ${child.status ?? child.signal}`);
    const times = JSON.parse(child.stdout) as Record<Column, number>;
    const cells = COLUMNS.map((column) =>
      column === 'peak RSS' ? String(Math.round(times[column])) : (times[column] / 1000).toFixed(1),
    );
    process.stdout.write(`| ${groups.toLocaleString('en')} | ${cells.join(' | ')} |\n`);
  }
}
