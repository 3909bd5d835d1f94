// LOD ladder of the sample models: per level as the simplifier made it, triangles, geometry bytes against LOD 0 and
// the share of area whose vertex normals stray more than 45° from their faces; then which levels the catalog keeps
// (at most 60 % / 30 % of LOD 0's geometry bytes, else `reduced: false`).
// Run: npx tsx bench/lod-ladder.ts [name filter…]      (prints a markdown table)
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { Logger } from '@gltf-transform/core';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { createNodeIO } from '../src/gltf/create-io.ts';
import { geometryBytes } from './geometry-bytes.ts';
import { keepIfSmaller } from '../src/pipeline/lods/keep-smaller-levels.ts';
import type { LodOutput } from '../src/pipeline/types.ts';
import { MODEL_FORMATS } from '../src/pipeline/types.ts';
import type { ModelFormat } from '../src/pipeline/types.ts';
import { SAMPLE_MODELS } from '../test/helpers/sample-models.ts';
import { normalDeviationShare } from '../test/pipeline/normal-deviation.ts';

const logger = new Logger(Logger.Verbosity.ERROR);

/** Every model file under `dir`, relative to the samples folder. */
function sampleModels(dir = SAMPLE_MODELS): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const absolute = path.join(dir, entry.name);
    if (entry.isDirectory()) return sampleModels(absolute);
    const format = path.extname(entry.name).slice(1).toLowerCase();
    return (MODEL_FORMATS as readonly string[]).includes(format)
      ? [path.relative(SAMPLE_MODELS, absolute)]
      : [];
  });
}

const filters = process.argv.slice(2);
const models = sampleModels().filter((model) => !filters.length || filters.some((f) => model.includes(f)));
const percent = (share: number) => (share * 100).toFixed(1);
const io = await createNodeIO();

console.log(
  '| model | triangles LOD 0 / 1 / 2 | geometry bytes LOD 0 | LOD 1 / 0 | LOD 2 / 0 | > 45° normals % LOD 0 / 1 / 2 | kept (reduced) 1 / 2 |',
);
console.log('| --- | --- | ---: | ---: | ---: | --- | --- |');
for (const model of models) {
  const file = path.join(SAMPLE_MODELS, model);
  const format = path.extname(model).slice(1).toLowerCase() as ModelFormat;
  // Every level that shrinks at all is kept here, so the table shows what the simplifier reached.
  const result = await convertModel({
    modelId: 'bench',
    source: { file, dir: path.dirname(file), format },
    logger,
    levelByteShares: [1, 1],
  });
  const bytes = result.lods.map((lod) => geometryBytes(lod.glb));
  const shares: number[] = [];
  for (const lod of result.lods) shares.push(normalDeviationShare(await io.readBinary(lod.glb)));
  // The catalog's rule, applied to the same levels.
  const kept: LodOutput[] = [];
  for (const lod of result.lods) kept.push(lod.reduced || lod.level === 0 ? keepIfSmaller(lod, kept) : lod);
  const reduced = kept
    .slice(1)
    .map((lod) => String(lod.reduced))
    .join(' / ');
  console.log(
    `| ${model} | ${result.lods.map((lod) => lod.triangle_count).join(' / ')} | ${bytes[0]} | ` +
      `${(bytes[1] / bytes[0]).toFixed(2)} | ${(bytes[2] / bytes[0]).toFixed(2)} | ` +
      `${shares.map(percent).join(' / ')} | ${reduced} |`,
  );
}
