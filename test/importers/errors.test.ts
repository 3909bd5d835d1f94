import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import { ConversionError } from '../../src/pipeline/types.ts';
import { MODELS, formatOf, recordingContext, triangleCount } from './support.ts';

let scratch: string;
before(async () => void (scratch = await mkdtemp(path.join(tmpdir(), 'vitrine-importers-'))));
after(() => rm(scratch, { recursive: true, force: true }));

/** Imports `bytes` written to a scratch file named after `sample`, through the registry. */
async function importBytes(sample: string, bytes: Uint8Array) {
  const dir = await mkdtemp(path.join(scratch, 'case-'));
  const file = path.join(dir, path.basename(sample));
  await writeFile(file, bytes);
  const format = formatOf(sample);
  return importerFor(format)!.read({ file, dir, format }, recordingContext());
}

/** Asserts that importing fails with a ConversionError whose message names the format and matches `reason`. */
async function rejects(sample: string, bytes: Uint8Array, label: string, reason: RegExp): Promise<void> {
  await assert.rejects(importBytes(sample, bytes), (error: unknown) => {
    assert.ok(error instanceof ConversionError, `a ConversionError, not ${String(error)}`);
    assert.ok(error.message.startsWith(`Could not read the ${label} file: `), error.message);
    assert.match(error.message, reason);
    return true;
  });
}

const TRUNCATED: [sample: string, label: string, reason: RegExp][] = [
  ['obj/spot_triangulated.obj', 'OBJ', /truncated/],
  [
    'stl/counter.unitsmm.STL',
    'STL',
    /truncated: its header declares 83,750 triangles, the file holds 41,874/,
  ],
  ['stl/sphereWithHole.stl', 'STL', /truncated/],
  [
    'ply/moebius-160-10.ply',
    'PLY',
    /truncated: its header declares 1,600 vertex, 2,880 face; the data ends in/,
  ],
  ['ply/Wuson.ply', 'PLY', /truncated: its header declares 11,184 vertex, 3,732 face; the data ends in/],
  ['fbx/spider/spider.fbx', 'FBX', /damaged/],
  ['fbx/cubes_with_names.fbx', 'FBX', /damaged/],
  ['dae/duck/duck.dae', 'COLLADA', /damaged/],
  ['step/screw.step', 'STEP', /truncated \(line \d+: unexpected end of file/],
  ['ifc/AC14-FZK-Haus.ifc', 'IFC', /truncated/],
];

for (const [sample, label, reason] of TRUNCATED) {
  void test(`${sample} cut in half fails with a clear ConversionError`, async () => {
    const bytes = await readFile(path.join(MODELS, sample));
    await rejects(sample, bytes.subarray(0, Math.floor(bytes.length / 2)), label, reason);
  });
}

/** Bytes that are no model in any format, the same on every run. */
const GARBAGE = Uint8Array.from({ length: 5000 }, (_, i) => (i * 7919 + 13) % 251);

const LABELS: [extension: string, label: string][] = [
  ['obj', 'OBJ'],
  ['stl', 'STL'],
  ['ply', 'PLY'],
  ['fbx', 'FBX'],
  ['dae', 'COLLADA'],
  ['3ds', '3DS'],
  ['step', 'STEP'],
  ['stp', 'STEP'],
  ['iges', 'IGES'],
  ['igs', 'IGES'],
  ['ifc', 'IFC'],
];

for (const [extension, label] of LABELS) {
  void test(`garbage and empty .${extension} files fail with a ConversionError naming ${label}`, async () => {
    await rejects(`garbage.${extension}`, GARBAGE, label, /./);
    await rejects(`empty.${extension}`, new Uint8Array(0), label, /empty/);
  });
}

void test('each importer still works after rejecting broken files', async () => {
  for (const sample of [
    'stl/sphereWithHole.stl',
    'step/red_cube_blue_cylinder.step',
    'ifc/beam-standard-case.ifc',
  ]) {
    const bytes = await readFile(path.join(MODELS, sample));
    await assert.rejects(importBytes(sample, bytes.subarray(0, bytes.length >> 1)), ConversionError);
    const result = await importBytes(sample, bytes);
    assert.ok(triangleCount(result.document) > 0);
  }
});
