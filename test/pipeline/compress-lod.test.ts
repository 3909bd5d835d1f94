import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { MeshoptEncoder } from 'meshoptimizer';
import validator from 'gltf-validator';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { compressLod } from '../../src/pipeline/lods/compress-lod.ts';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import type { ConversionResult, ImportSource } from '../../src/pipeline/types.ts';
import { exactTriangles } from '../helpers/ladder-checks.ts';
import { MODELS, addSphere, emptyDocument, quietLogger, readGlb, validationErrors } from './documents.ts';
import { glbJson } from '../helpers/ladder-checks.ts';

const TRUCK: ImportSource = {
  file: path.join(MODELS, 'glb/CesiumMilkTruck.glb'),
  dir: path.join(MODELS, 'glb'),
  format: 'glb',
};

/** Group ids carried by the nodes of a document. */
function groupIds(document: Document): Set<string> {
  const ids = new Set<string>();
  for (const node of document.getRoot().listNodes()) {
    const id = node.getExtras().group_id;
    if (typeof id === 'string') ids.add(id);
  }
  return ids;
}

void test('meshopt compresses every level of the milk truck, LOD 0 without quantizing', async () => {
  const convert = (compressLods: 'none' | 'meshopt'): Promise<ConversionResult> =>
    // Every level smaller than the one before is kept, compressed or not, so the levels compare one to one.
    convertModel({
      modelId: 'truck',
      source: TRUCK,
      logger: quietLogger,
      compressLods,
      levelByteShares: [1, 1],
    });
  const plain = await convert('none');
  const packed = await convert('meshopt');

  const lod0 = glbJson(packed.lods[0].glb);
  assert.ok(lod0.extensionsRequired?.includes('EXT_meshopt_compression'), 'LOD 0 is compressed');
  assert.ok(!lod0.extensionsUsed?.includes('KHR_mesh_quantization'), 'LOD 0 is not quantized');
  assert.deepEqual(await validationErrors(packed.lods[0].glb), [], 'LOD 0 validates');
  assert.ok(packed.lods[0].glb.byteLength < plain.lods[0].glb.byteLength, 'LOD 0 is smaller compressed');
  assert.deepEqual(
    exactTriangles(await readGlb(packed.lods[0].glb)),
    exactTriangles(await readGlb(plain.lods[0].glb)),
    "LOD 0 has the plain file's triangles to the bit",
  );

  for (const level of [1, 2] as const) {
    const lod = packed.lods[level];
    const uncompressed = plain.lods[level];
    const label = `LOD ${level}`;
    const json = glbJson(lod.glb);
    assert.ok(json.extensionsUsed?.includes('EXT_meshopt_compression'), `${label} declares meshopt`);
    assert.ok(json.extensionsRequired?.includes('EXT_meshopt_compression'), `${label} requires meshopt`);

    const report = await validator.validateBytes(lod.glb, { maxIssues: 100 });
    const errors = report.issues.messages.filter((message) => message.severity === 0);
    assert.equal(report.issues.numErrors, 0, `${label} validates: ${JSON.stringify(errors)}`);

    assert.ok(
      lod.glb.byteLength < uncompressed.glb.byteLength,
      `${label}: ${lod.glb.byteLength} B compressed < ${uncompressed.glb.byteLength} B plain`,
    );

    const document = await readGlb(lod.glb);
    assert.equal(
      lod.triangle_count,
      uncompressed.triangle_count,
      `${label} keeps the plain level's triangles`,
    );
    assert.equal(computeStats(document).triangle_count, lod.triangle_count, `${label} reads back whole`);
    const ids = groupIds(document);
    for (const part of packed.parts) assert.ok(ids.has(part.group_id), `${label} keeps ${part.group_id}`);
  }
});

void test('compressLod compresses a copy unless told to consume its source', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ball').setMesh(addSphere(document, 32, 16)));
  const position = () =>
    document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!.getArray();

  const copy = await compressLod(document, { encoder: MeshoptEncoder }, { logger: quietLogger });
  assert.notEqual(copy, document);
  assert.deepEqual(
    copy
      .getRoot()
      .listExtensionsUsed()
      .map((extension) => extension.extensionName)
      .sort(),
    ['EXT_meshopt_compression', 'KHR_mesh_quantization'],
  );
  assert.deepEqual(document.getRoot().listExtensionsUsed(), [], 'the source is untouched');
  assert.ok(position() instanceof Float32Array, 'the source keeps float positions');

  const same = await compressLod(
    document,
    { encoder: MeshoptEncoder, consumeSource: true },
    { logger: quietLogger },
  );
  assert.equal(same, document);
  assert.ok(!(position() instanceof Float32Array), 'consumed in place: positions are quantized');
});

void test('compressLod without quantizing keeps float vertex data and only marks meshopt', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ball').setMesh(addSphere(document, 32, 16)));
  const lossless = await compressLod(
    document,
    { encoder: MeshoptEncoder, quantize: false },
    { logger: quietLogger },
  );
  assert.deepEqual(
    lossless
      .getRoot()
      .listExtensionsUsed()
      .map((extension) => extension.extensionName),
    ['EXT_meshopt_compression'],
  );
  const primitive = lossless.getRoot().listMeshes()[0].listPrimitives()[0];
  for (const semantic of primitive.listSemantics()) {
    assert.ok(
      primitive.getAttribute(semantic)!.getArray() instanceof Float32Array,
      `${semantic} stays float`,
    );
  }
  assert.deepEqual(
    exactTriangles(lossless),
    exactTriangles(document),
    'the same triangles, reordered at most',
  );
});

void test('the conversion thread receives the compression setting', async () => {
  const pool = createConversionPool();
  const result = await pool
    .convert({ modelId: 'truck', source: TRUCK, logger: quietLogger, compressLods: 'meshopt' })
    .finally(() => pool.close());
  assert.deepEqual(
    result.lods.map(
      (lod) => glbJson(lod.glb).extensionsRequired?.includes('EXT_meshopt_compression') ?? false,
    ),
    [true, true, true],
  );
});

/** Every vertex's `semantic` value, positions in world space through each node that holds them. */
function vertexValues(document: Document, semantic: string): number[][] {
  const result: number[][] = [];
  for (const node of document.getRoot().listNodes()) {
    const mesh = node.getMesh();
    if (!mesh) continue;
    const matrix = node.getWorldMatrix();
    for (const primitive of mesh.listPrimitives()) {
      const accessor = primitive.getAttribute(semantic)!;
      for (let i = 0; i < accessor.getCount(); i++) {
        const value = accessor.getElement(i, []);
        if (semantic !== 'POSITION') {
          result.push(value);
          continue;
        }
        const [x, y, z] = value;
        result.push(
          [0, 1, 2].map((r) => matrix[r] * x + matrix[4 + r] * y + matrix[8 + r] * z + matrix[12 + r]),
        );
      }
    }
  }
  return result;
}

/** Largest distance from a point of `points` to the nearest point of `reference`. */
function farthest(points: number[][], reference: number[][]): number {
  let worst = 0;
  for (const point of points) {
    let nearest = Infinity;
    for (const other of reference)
      nearest = Math.min(nearest, Math.hypot(...point.map((v, i) => v - other[i])));
    worst = Math.max(worst, nearest);
  }
  return worst;
}

void test('quantized levels store positions as plain grid integers and UVs outside [0, 1] on a float grid', async () => {
  const document = emptyDocument();
  const mesh = addSphere(document, 32, 16, 3);
  const uv = mesh.listPrimitives()[0].getAttribute('TEXCOORD_0')!;
  // Tiled UVs reach past [0, 1], which no normalized integer holds.
  uv.setArray(uv.getArray()!.map((value) => value * 3 - 1) as Float32Array<ArrayBuffer>);
  const holder = document.createNode('Ball').setMesh(mesh).setTranslation([10, -4, 2]).setScale([2, 2, 2]);
  holder.addChild(document.createNode('Child'));
  document.getRoot().listScenes()[0].addChild(holder);

  const packed = await compressLod(document, { encoder: MeshoptEncoder }, { logger: quietLogger });
  const position = packed.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!;
  assert.ok(
    position.getArray() instanceof Int16Array && !position.getNormalized(),
    'positions are plain int16',
  );
  const largest = Math.max(...Array.from(position.getArray()!, Math.abs));
  assert.ok(largest > 8000 && largest <= 8191, `grid values span 14 bits signed (largest ${largest})`);
  // The sphere is 12 units wide in the world: a 14-bit grid over it is 12 / 16383 apart.
  const positionError = farthest(vertexValues(packed, 'POSITION'), vertexValues(document, 'POSITION'));
  assert.ok(
    positionError <= 12 / 16383,
    `world positions within a grid step of the source: ${positionError}`,
  );

  const packedUv = packed.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('TEXCOORD_0')!;
  assert.ok(packedUv.getArray() instanceof Float32Array, 'UVs outside [0, 1] stay floats');
  const step = 2 ** -11; // largest power of two under an extent of 3 over 4095 steps
  for (const value of packedUv.getArray()!)
    assert.equal(value / step, Math.round(value / step), `${value} on the grid`);
  const uvError = farthest(vertexValues(packed, 'TEXCOORD_0'), vertexValues(document, 'TEXCOORD_0'));
  assert.ok(uvError <= step, `UVs within a step of the source: ${uvError}`);
  const io = await createNodeIO();
  assert.deepEqual(await validationErrors(await io.writeBinary(packed)), [], 'the level validates');
});
