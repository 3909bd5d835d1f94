import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { EXTMeshoptCompression } from '@gltf-transform/extensions';
import { meshopt } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { MAKE_LODS_DEFAULTS } from '../../src/pipeline/lods/make-lods.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { detectModelFormat } from '../../src/pipeline/detect-format.ts';
import { prepareSource } from '../../src/pipeline/prepare-source.ts';
import type { ConversionResult, ImportSource } from '../../src/pipeline/types.ts';
import { makeTraversalZip, makeZip, makeZipBomb } from '../fixtures/make-zip.ts';
import {
  MODELS,
  addSphere,
  emptyDocument,
  quietLogger,
  readGlb,
  tempDir,
  validationErrors,
  writeTempGlb,
} from './documents.ts';
import { torus, writeBinaryStl } from './torus.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** Triangles of the mesh placed on each part node, keyed by group_id. */
function trianglesByPart(document: Document): Map<string, number> {
  const result = new Map<string, number>();
  for (const node of document.getRoot().listNodes()) {
    const groupId = node.getExtras().group_id;
    const mesh = node.getMesh();
    if (typeof groupId !== 'string' || !mesh) continue;
    let triangles = 0;
    for (const primitive of mesh.listPrimitives()) triangles += (primitive.getIndices()?.getCount() ?? 0) / 3;
    result.set(groupId, triangles);
  }
  return result;
}

/** Checks every promise of the conversion output contract on one converted model. */
async function assertContract(label: string, source: ImportSource, result: ConversionResult): Promise<void> {
  assert.deepEqual(
    result.lods.map((lod) => lod.level),
    [0, 1, 2],
    label,
  );
  const documents: Document[] = [];
  for (const lod of result.lods) {
    assert.deepEqual(await validationErrors(lod.glb), [], `${label} LOD ${lod.level} validates`);
    const json = JSON.stringify((await (await createNodeIO()).binaryToJSON(lod.glb)).json);
    assert.doesNotMatch(
      json,
      /EXT_meshopt_compression|KHR_draco_mesh_compression/,
      `${label} is not compressed`,
    );
    const document = await readGlb(lod.glb);
    assert.equal(
      computeStats(document).triangle_count,
      lod.triangle_count,
      `${label} LOD ${lod.level} count`,
    );
    documents.push(document);
  }
  const [t0, t1, t2] = result.lods.map((lod) => lod.triangle_count);
  assert.equal(t0, result.triangle_count);
  assert.ok(t0 >= t1 && t1 >= t2, `${label}: ${t0} ≥ ${t1} ≥ ${t2}`);

  // Every part, by group_id, exists in every level; each level stays within its error bound (the simplifier
  // stops there rather than reach its triangle target at any cost).
  const levels = documents.map(trianglesByPart);
  for (const part of result.parts) {
    for (const [level, triangles] of levels.entries()) {
      assert.ok(triangles.has(part.group_id), `${label}: part ${part.group_id} missing from LOD ${level}`);
    }
  }
  assert.equal(result.lods[0].error, 0);
  for (const lod of result.lods.slice(1)) {
    assert.ok(
      lod.error <= MAKE_LODS_DEFAULTS.maxError[lod.level - 1] + 1e-9,
      `${label}: LOD ${lod.level} error`,
    );
  }

  // LOD 0 keeps the source's extent.
  const original = computeStats(await (await createNodeIO()).read(source.file));
  const lod0 = computeStats(documents[0]).bounds;
  for (let axis = 0; axis < 3; axis++) {
    for (const bounds of [result.bounds, lod0]) {
      assert.ok(Math.abs(bounds.min[axis] - original.bounds.min[axis]) < 1e-4, `${label} min ${axis}`);
      assert.ok(Math.abs(bounds.max[axis] - original.bounds.max[axis]) < 1e-4, `${label} max ${axis}`);
    }
  }
}

/** Converts a sample in place. */
async function convertSample(
  relative: string,
  format: 'glb' | 'gltf',
): Promise<{ source: ImportSource; result: ConversionResult }> {
  const file = path.join(MODELS, relative);
  const source: ImportSource = { file, dir: path.dirname(file), format };
  return { source, result: await convertModel({ modelId: 'sample', source, logger: quietLogger }) };
}

for (const sample of ['glb/CesiumMilkTruck.glb', 'glb/barrel.glb', 'glb/MultiUVTest.glb'] as const) {
  void test(`converts ${sample} to three valid levels`, async () => {
    const { source, result } = await convertSample(sample, 'glb');
    await assertContract(sample, source, result);
    assert.equal(result.source_unit, 'm');
    assert.equal(result.source_up_axis, '+Y');
  });
}

void test('converts BoxTextured.gltf with its .bin and texture embedded in each GLB', async () => {
  const { source, result } = await convertSample('gltf/BoxTextured/BoxTextured.gltf', 'gltf');
  await assertContract('BoxTextured', source, result);
  for (const lod of result.lods) assert.equal((await readGlb(lod.glb)).getRoot().listTextures().length, 1);
});

void test('converts the BoxTextured folder uploaded as a zip', async () => {
  const folder = path.join(MODELS, 'gltf/BoxTextured');
  const names = ['BoxTextured.gltf', 'BoxTextured0.bin', 'CesiumLogoFlat.png'];
  const zip = makeZip(
    await Promise.all(
      names.map(async (name) => ({
        name: `BoxTextured/${name}`,
        data: await readFile(path.join(folder, name)),
      })),
    ),
  );
  const upload = path.join(scratch.dir, 'upload-box');
  await writeFile(upload, zip);
  const detected = await detectModelFormat(upload, 'box.zip');
  assert.ok(detected, 'the zip holds a model');
  const source = await prepareSource({
    file: upload,
    upload: detected,
    workDir: path.join(scratch.dir, 'work-box'),
  });
  assert.equal(source.format, 'gltf');
  assert.equal(path.basename(source.file), 'BoxTextured.gltf');
  await assertContract(
    'zipped BoxTextured',
    source,
    await convertModel({ modelId: 'zip', source, logger: quietLogger }),
  );
});

void test('a generated sphere of over 1,000 triangles falls to 25 % or less, keeping its parts', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  scene.addChild(document.createNode('Dense').setMesh(addSphere(document, 128, 96)));
  scene.addChild(
    document
      .createNode('Moon')
      .setMesh(addSphere(document, 64, 48, 0.3))
      .setTranslation([3, 0, 0])
      .setExtras({ group_id: 'moon-guid' }),
  );
  const temp = await writeTempGlb(document);
  try {
    const source: ImportSource = { file: temp.file, dir: temp.dir, format: 'glb' };
    const progress: [number, string][] = [];
    const result = await convertModel({
      modelId: 'gen',
      source,
      logger: quietLogger,
      onProgress: (p, s) => progress.push([p, s]),
    });
    await assertContract('sphere', source, result);
    assert.deepEqual(
      result.parts.map((part) => [part.group_id, part.name]),
      [
        ['gen:0', 'Dense'],
        ['moon-guid', 'Moon'],
      ],
    );
    assert.ok(result.parts.every((part) => part.triangle_count > 1000));
    assert.ok(result.lods[2].triangle_count <= result.triangle_count * 0.25);

    // Progress: whole percentages that never go back, through every stage, ending at 100.
    assert.ok(
      progress.every(
        ([percent], i) => Number.isInteger(percent) && (i === 0 || percent >= progress[i - 1][0]),
      ),
    );
    assert.deepEqual(
      [...new Set(progress.map(([, stage]) => stage))],
      ['import', 'clean-up', 'parts', 'lods', 'write'],
    );
    assert.deepEqual(progress.at(-1), [100, 'write']);
  } finally {
    await temp.remove();
  }
});

void test('progress on one big mesh moves through every stage, never silent for 2 s', async () => {
  // 240,000 triangles in pieces of 20,000: the LOD stage reports after each piece, as a 20 M-triangle scan
  // does with the default pieces of 250,000.
  const file = path.join(scratch.dir, 'torus.stl');
  await writeBinaryStl(file, torus(800, 150));
  const reports: { at: number; percent: number; stage: string }[] = [];
  let last = performance.now();
  const result = await convertModel({
    modelId: 'big',
    source: { file, dir: scratch.dir, format: 'stl' },
    logger: quietLogger,
    lods: { chunkTriangles: 20_000 },
    onProgress: (percent, stage) => {
      const now = performance.now();
      reports.push({ at: now - last, percent, stage });
      last = now;
    },
  });
  assert.equal(result.triangle_count, 240_000);
  const longest = Math.max(...reports.map((report) => report.at));
  assert.ok(longest < 2_000, `progress was silent for ${Math.round(longest)} ms`);
  // LOD 0's write, 12 pieces for LOD 1, 6 for LOD 2 (made from LOD 1's 120,000): heard from at every step.
  const lodReports = reports.filter((report) => report.stage === 'lods');
  assert.ok(lodReports.length >= 19, `${lodReports.length} reports while making LODs`);
  assert.deepEqual(reports.at(-1)?.percent, 100);
});

void test('reads a meshopt-compressed, quantized GLB and writes LODs without compression', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Packed').setMesh(addSphere(document, 64, 48)));
  await document.transform(meshopt({ encoder: MeshoptEncoder, level: 'medium' }));
  assert.ok(
    document
      .getRoot()
      .listExtensionsUsed()
      .some((extension) => extension instanceof EXTMeshoptCompression),
  );
  const temp = await writeTempGlb(document);
  try {
    const source: ImportSource = { file: temp.file, dir: temp.dir, format: 'glb' };
    const result = await convertModel({ modelId: 'packed', source, logger: quietLogger });
    await assertContract('meshopt', source, result);
    for (const lod of result.lods) {
      const json = (await (await createNodeIO()).binaryToJSON(lod.glb)).json;
      assert.deepEqual(json.extensionsUsed ?? [], [], `LOD ${lod.level} uses no extension`);
    }
  } finally {
    await temp.remove();
  }
});

void test('rejects bad uploads with clear messages', async () => {
  const bytes = await readFile(path.join(MODELS, 'glb/CesiumMilkTruck.glb'));
  const cases: [string, string, Uint8Array, RegExp][] = [
    ['truncated', 'truck.glb', bytes.subarray(0, bytes.length >> 1), /^Invalid GLB: /],
    ['empty', 'empty.glb', new Uint8Array(), /^The file is empty$/],
    [
      'traversal',
      'evil.zip',
      makeTraversalZip(),
      /^Archive entry "\.\.\/evil\.txt" points outside the archive$/,
    ],
    ['bomb', 'bomb.zip', await makeZipBomb(64 * 1024 * 1024, 'bomb.glb'), /zip bomb/],
  ];
  for (const [label, name, data, message] of cases) {
    const upload = path.join(scratch.dir, `bad-${label}`);
    await writeFile(upload, data);
    const detected = await detectModelFormat(upload, name);
    assert.ok(detected, `${label}: judged a model by its name and bytes; the conversion finds the fault`);
    const attempt = async () => {
      const source = await prepareSource({
        file: upload,
        upload: detected,
        workDir: path.join(scratch.dir, `work-${label}`),
      });
      return convertModel({ modelId: label, source, logger: quietLogger });
    };
    await assert.rejects(attempt(), { name: 'ConversionError', message }, label);
  }
});
