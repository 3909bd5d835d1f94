// Batched levels benchmark: a model of many parts converted with its levels batched (the default) and with a node
// per part (`batchParts: false`), LOD 0's bytes and JSON share side by side, next to gltfpack `-cc -noq -mi` run
// on the plain, unbatched LOD 0 of the same conversion. Run: `nice npx tsx bench/batched-lods.ts [groups] [shapes]`
// (defaults 2,000 groups of 50 repeated boxes, the generator of test/fixtures/many-parts-obj.ts); also a GLB of as
// many nodes sharing 50 meshes (bench/many-parts-models.ts) and the spider OBJ.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Logger } from '@gltf-transform/core';
import { pack } from 'gltfpack';
import { convertModel } from '../src/pipeline/convert-model.ts';
import type { ImportSource } from '../src/pipeline/types.ts';
import { manyPartsObj } from '../test/fixtures/many-parts-obj.ts';
import { instancedGltf } from './many-parts-models.ts';

const groups = Number(process.argv[2] ?? 2000);
const shapes = Number(process.argv[3] ?? 50);
const SPIDER = '/work/shared/models/obj/spider/spider.obj';

/** Length of a GLB's JSON chunk. */
function jsonBytes(glb: Uint8Array): number {
  return new DataView(glb.buffer, glb.byteOffset, glb.byteLength).getUint32(12, true);
}

/** gltfpack run in memory on `input` with `args`; the output GLB. */
async function gltfpack(input: Uint8Array, args: string[]): Promise<Uint8Array> {
  const files = new Map<string, Uint8Array>([['in.glb', input]]);
  await pack(['-i', 'in.glb', '-o', 'out.glb', ...args], {
    read: (name: string) => files.get(path.basename(name))!,
    write: (name: string, data: Uint8Array) => void files.set(path.basename(name), data.slice()),
  });
  return files.get('out.glb')!;
}

/** LOD 0 of `source` as served (meshopt), batched or not, and plain (no compression, not batched). */
async function lod0(source: ImportSource, batched: boolean, compressed: boolean): Promise<Uint8Array> {
  const result = await convertModel({
    modelId: 'bench',
    source,
    logger: new Logger(Logger.Verbosity.ERROR),
    compressLods: compressed ? 'meshopt' : 'none',
    batchParts: batched ? undefined : false,
  });
  return result.lods[0]!.glb;
}

const row = (label: string, glb: Uint8Array) =>
  `| ${label} | ${(glb.byteLength / 1024).toFixed(1)} | ${((100 * jsonBytes(glb)) / glb.byteLength).toFixed(0)} % |`;

const dir = await mkdtemp(path.join(tmpdir(), 'batched-lods-'));
try {
  const obj = path.join(dir, 'many.obj');
  await writeFile(obj, manyPartsObj({ groups, kind: 'repeated', shapes }));
  const glb = path.join(dir, 'instanced.glb');
  await writeFile(glb, await instancedGltf(groups));
  const inputs: [string, ImportSource][] = [
    [`OBJ, ${groups} groups of ${shapes} boxes`, { file: obj, dir, format: 'obj' }],
    [`GLB, ${groups} nodes sharing 50 meshes`, { file: glb, dir, format: 'glb' }],
    ['spider.obj', { file: SPIDER, dir: path.dirname(SPIDER), format: 'obj' }],
  ];
  for (const [name, source] of inputs) {
    const perPart = await lod0(source, false, true);
    const batched = await lod0(source, true, true);
    const plain = await lod0(source, false, false);
    // -kn -ke keep every part's node and its extras (its group_id), as the catalog needs; without them gltfpack
    // merges the parts away, the floor of what any parts could cost.
    const packed = await gltfpack(plain, ['-kn', '-ke', '-cc', '-noq', '-mi']);
    const merged = await gltfpack(plain, ['-cc', '-noq', '-mi']);
    console.log(`\n${name}\n\n| LOD 0 | KiB | JSON |\n|---|--:|--:|`);
    console.log(row('node per part (meshopt)', perPart));
    console.log(row('batched (meshopt)', batched));
    console.log(row('gltfpack -kn -ke -cc -noq -mi', packed));
    console.log(row('gltfpack -cc -noq -mi (parts merged away)', merged));
    const ratio = (of: Uint8Array) => (batched.byteLength / of.byteLength).toFixed(2);
    console.log(`\nbatched ÷ gltfpack with parts: ${ratio(packed)}×; ÷ parts merged away: ${ratio(merged)}×`);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
