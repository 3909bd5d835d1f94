// Served level sizes: each sample converted plain (GLB_COMPRESSION=none, LOD_TEXTURES=source) and as served by
// default (meshopt + WebP ladder), next to gltfpack -cc from the same input (our plain LOD 0) in the same run:
// `-cc -noq` for LOD 0, `-cc -si <our ratio>` for LOD 1 and 2. gltfpack's npm build copies textures as they are
// (no -tc without a Basis encoder), so the geometry share (bytes without images) is printed beside the totals.
// Run: npx tsx bench/ladder-sizes.ts [model files…]   (default: the textured and untextured test samples)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Logger } from '@gltf-transform/core';
import { pack } from 'gltfpack';
import { computeStats } from '../src/pipeline/compute-stats.ts';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { createNodeIO } from '../src/gltf/create-io.ts';
import type { ImportSource, ModelFormat } from '../src/pipeline/types.ts';

const FIXTURES = fileURLToPath(new URL('../test/fixtures/models/', import.meta.url));
const DEFAULT_INPUTS = [
  'glb/barrel.glb',
  'glb/CesiumMilkTruck.glb',
  'dae/duck/duck.dae',
  'obj/spot_triangulated.obj',
  'dae/franka_fer_link0.dae',
  'ply/Wuson.ply',
  'stl/counter.unitsmm.STL',
];
const logger = new Logger(Logger.Verbosity.ERROR);
const io = await createNodeIO();

/** Total bytes, image bytes and triangles of one GLB. */
interface Sized {
  bytes: number;
  images: number;
  triangles: number;
}

async function sized(glb: Uint8Array): Promise<Sized> {
  const document = await io.readBinary(glb);
  const images = document
    .getRoot()
    .listTextures()
    .reduce((sum, texture) => sum + (texture.getImage()?.byteLength ?? 0), 0);
  return { bytes: glb.byteLength, images, triangles: computeStats(document).triangle_count };
}

/** gltfpack run in memory on `input` with `args`; the output GLB. */
async function gltfpack(input: Uint8Array, args: string[]): Promise<Uint8Array> {
  const files = new Map<string, Uint8Array>([['in.glb', input]]);
  // -kv: our levels keep vertex attributes no material reads (clean-up leaves them for materials the viewer binds).
  await pack(['-i', 'in.glb', '-o', 'out.glb', '-kn', '-ke', '-kv', ...args], {
    read: (name: string) => files.get(path.basename(name))!,
    write: (name: string, data: Uint8Array) => void files.set(path.basename(name), data.slice()),
  });
  return files.get('out.glb')!;
}

function sourceOf(file: string): ImportSource {
  const extension = path.extname(file).slice(1).toLowerCase();
  return { file, dir: path.dirname(file), format: extension as ModelFormat };
}

const kb = (bytes: number) => (bytes / 1024).toFixed(0);
const inputs =
  process.argv.length > 2 ? process.argv.slice(2) : DEFAULT_INPUTS.map((name) => FIXTURES + name);
console.log(
  '| model | LOD | triangles | plain KiB | served KiB | served geometry KiB | gltfpack args | gltfpack triangles | gltfpack KiB | gltfpack geometry KiB | geometry served ÷ gltfpack |',
);
console.log('|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|');
for (const file of inputs) {
  const source = sourceOf(file);
  const plain = await convertModel({ modelId: 'bench', source, logger });
  const start = performance.now();
  const served = await convertModel({
    modelId: 'bench',
    source,
    logger,
    compressLods: 'meshopt',
    lodTextures: 'webp',
  });
  const servedMs = performance.now() - start;
  const lod0Triangles = plain.lods[0].triangle_count;
  for (const level of [0, 1, 2] as const) {
    const ours = await sized(served.lods[level].glb);
    const ratio = served.lods[level].triangle_count / lod0Triangles;
    const args = level === 0 ? ['-cc', '-noq'] : ['-cc', '-si', ratio.toFixed(4)];
    const theirs = await sized(await gltfpack(plain.lods[0].glb, args));
    const geometry = (s: Sized) => s.bytes - s.images;
    console.log(
      `| ${path.basename(file)} | ${level} | ${ours.triangles} | ${kb(plain.lods[level].glb.byteLength)} | ${kb(ours.bytes)} | ${kb(geometry(ours))} | \`${args.join(' ')}\` | ${theirs.triangles} | ${kb(theirs.bytes)} | ${kb(geometry(theirs))} | ${(geometry(ours) / geometry(theirs)).toFixed(2)} |`,
    );
  }
  console.error(`${path.basename(file)}: served conversion ${Math.round(servedMs)} ms`);
}
