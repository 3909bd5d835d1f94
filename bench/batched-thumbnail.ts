// The conversion's thumbnail of a batched level of many parts: drawn from its batched primitives (no colour bound,
// as on a first conversion) against the level split back into a node per part first, as every thumbnail was drawn
// before (forced here by binding a colour to a group id the model does not have). One conversion of a generated OBJ
// of N boxes, then the two renders of its thumbnail level alternately, three times each, in one process.
// Run: npx tsx bench/batched-thumbnail.ts [groups=100000] [--distinct]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { renderThumbnail } from '../src/render/render-thumbnail.ts';
import type { MaterialOverride } from '../src/render/render-thumbnail.ts';
import { thumbnailLevel } from '../src/render/thumbnail-level.ts';
import { manyPartsObj } from '../test/fixtures/many-parts-obj.ts';
import { quietLogger } from '../test/pipeline/documents.ts';

const groups = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 100_000);
const kind = process.argv.includes('--distinct') ? 'distinct' : 'repeated';
const RUNS = 3;

const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-batched-thumbnail-'));
try {
  const file = path.join(dir, 'model.obj');
  await writeFile(file, manyPartsObj({ groups, kind, shapes: 50 }));
  const result = await convertModel({
    modelId: 'bench',
    source: { file, dir, format: 'obj' },
    logger: quietLogger,
    compressLods: 'meshopt',
  });
  const glb = thumbnailLevel(result.lods).glb;
  const forcedSplit = new Map<string, MaterialOverride>([['not-a-part', { color: [0, 1, 0], alpha: 1 }]]);
  const ways = [
    ['a node per part (before)', forcedSplit],
    ['batched primitives (after)', new Map<string, MaterialOverride>()],
  ] as const;
  const times = new Map<string, number[]>(ways.map(([name]) => [name, []]));
  for (let run = 0; run < RUNS; run++) {
    for (const [name, materialOverrides] of ways) {
      const start = performance.now();
      await renderThumbnail(glb, { materialOverrides });
      times.get(name)!.push((performance.now() - start) / 1000);
    }
  }
  process.stdout.write(
    `${groups.toLocaleString('en')} ${kind} boxes, thumbnail level ${glb.byteLength} bytes\n\n`,
  );
  process.stdout.write('| thumbnail drawn from | runs s | median s |\n| --- | --- | ---: |\n');
  for (const [name, list] of times) {
    const sorted = [...list].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    process.stdout.write(
      `| ${name} | ${list.map((t) => t.toFixed(2)).join(', ')} | ${median.toFixed(2)} |\n`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
