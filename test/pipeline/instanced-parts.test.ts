// A model of many nodes sharing a few meshes converts to levels that draw each shared mesh as instances of one node
// (EXT_mesh_gpu_instancing, each instance's part by EXT_instance_features), which read back, split, export and paint
// as a node per part; nodes an instance cannot stand for keep their own.
import assert from 'node:assert/strict';
import path from 'node:path';
import { writeFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import type { Document, Node, vec3, vec4 } from '@gltf-transform/core';
import { EXTMeshGPUInstancing } from '@gltf-transform/extensions';
import type { InstancedMesh } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { EXT_INSTANCE_FEATURES, EXTInstanceFeatures } from '../../src/gltf/ext-instance-features.ts';
import { batchParts } from '../../src/pipeline/lods/batch-parts.ts';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import type { ConversionResult } from '../../src/pipeline/types.ts';
import { renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import { splitFeatureParts } from '../../src/render/scene/split-feature-parts.ts';
import { exportModel } from '../../src/writers/export-model.ts';
import { zipEntries } from '../exports/support.ts';
import {
  addSphere,
  emptyDocument,
  quietLogger,
  readGlb,
  tempDir,
  validationErrors,
  worldCentre,
} from './documents.ts';

const PARTS = 120;
const SHAPES = 4;
/** The part placed under a parent scaled unevenly and turned itself: sheared, so it keeps its node. */
const SHEARED = 'p7';

let scratch: Awaited<ReturnType<typeof tempDir>>;
let converted: ConversionResult;
/** The model of fine spheres converted, its LOD 1 and 2 quantized. */
let fine: ConversionResult;
/** Each source part's world-space centre. */
let centres: Map<string, number[]>;

/** `document` converted from a GLB, its levels compressed as served. */
async function convert(document: Document, name: string): Promise<ConversionResult> {
  const file = path.join(scratch.dir, `${name}.glb`);
  await writeFile(file, await (await createNodeIO()).writeBinary(document));
  return convertModel({
    modelId: name,
    source: { file, dir: scratch.dir, format: 'glb' },
    logger: quietLogger,
    compressLods: 'meshopt',
  });
}

/**
 * 120 parts drawing 4 shared spheres, moved, turned and scaled (one sheared by its parent). Fine spheres (`fine`)
 * weigh more than the parts' table and placements, so LOD 1 and 2 shrink and are written quantized rather than
 * LOD 0 standing in for them.
 */
function sharedMeshes(fine = false): Document {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const [segments, rings] = fine ? [192, 128] : [8, 6];
  const meshes = Array.from({ length: SHAPES }, (_, shape) =>
    addSphere(document, segments, rings, 0.2 + shape / 20),
  );
  const squashed = document.createNode('Squashed').setScale([1, 3, 1]);
  scene.addChild(squashed);
  for (let i = 0; i < PARTS; i++) {
    const angle = (i / PARTS) * Math.PI;
    const node = document
      .createNode(`part ${i}`)
      .setMesh(meshes[i % SHAPES]!)
      .setTranslation([i % 12, Math.floor(i / 12), 0])
      .setRotation([0, 0, Math.sin(angle / 2), Math.cos(angle / 2)] as vec4)
      .setScale((i % 5 === 0 ? [1, 2, 1] : [1, 1, 1]) as vec3)
      .setExtras({ group_id: `p${i}` });
    (`p${i}` === SHEARED ? squashed : scene).addChild(node);
  }
  return document;
}

before(async () => {
  scratch = await tempDir();
  const document = sharedMeshes();
  centres = new Map(
    partNodes(document).map((node) => [node.getExtras().group_id as string, worldCentre(node)]),
  );
  converted = await convert(document, 'shared');
  fine = await convert(sharedMeshes(true), 'fine');
});
after(() => scratch.remove());

void test('each shared mesh is drawn as instances of one node in every level, and the levels are valid', async () => {
  assert.equal(converted.parts.length, PARTS);
  assert.ok(
    fine.lods[1].reduced && fine.lods[2].reduced,
    'LOD 1 and 2 of the fine spheres are files of their own',
  );
  for (const lod of [...converted.lods, ...fine.lods]) {
    const document = await readGlb(lod.glb);
    const instancing = document
      .getRoot()
      .listNodes()
      .filter((node) => node.getExtension('EXT_mesh_gpu_instancing'));
    assert.equal(instancing.length, SHAPES, `LOD ${lod.level}: a node per shared mesh`);
    const instances = instancing.reduce(
      (sum, node) =>
        sum +
        node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing')!.getAttribute('TRANSLATION')!.getCount(),
      0,
    );
    assert.equal(instances, PARTS - 1, `LOD ${lod.level}: every part an instance but the sheared one`);
    assert.ok(
      instancing.every((node) => node.getExtension(EXT_INSTANCE_FEATURES)),
      'their parts read back',
    );
    const sheared = partNodes(document).filter((node) => node.getExtras().group_id === SHEARED);
    assert.equal(sheared.length, 1, 'the sheared part keeps its node');
    assert.deepEqual(await validationErrors(lod.glb), [], `LOD ${lod.level} is valid`);
    assert.deepEqual(unusedAccessors(document), [], `LOD ${lod.level} holds no data nothing reads`);
  }
  // The quantized levels' positions are the grid's integers, the instances scaled to match.
  for (const lod of fine.lods.slice(1)) {
    const document = await readGlb(lod.glb);
    for (const mesh of document.getRoot().listMeshes()) {
      for (const primitive of mesh.listPrimitives()) {
        assert.equal(primitive.getAttribute('POSITION')!.getNormalized(), false, `LOD ${lod.level}`);
      }
    }
  }
});

void test('instances only moved and turned carry no scale, and an export keeps no instance data', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const sphere = addSphere(document, 8, 6, 0.3);
  for (let i = 0; i < PARTS; i++) {
    const angle = (i / PARTS) * Math.PI;
    scene.addChild(
      document
        .createNode(`part ${i}`)
        .setMesh(sphere)
        .setTranslation([i, 0, 0])
        .setRotation([0, Math.sin(angle / 2), 0, Math.cos(angle / 2)] as vec4)
        .setExtras({ group_id: `p${i}` }),
    );
  }
  batchParts(document, {}, { logger: quietLogger });
  const [batch] = document
    .getRoot()
    .listNodes()
    .flatMap((node) => node.getExtension<InstancedMesh>('EXT_mesh_gpu_instancing') ?? []);
  assert.ok(batch?.getAttribute('ROTATION'));
  assert.equal(batch.getAttribute('SCALE'), null, 'a turn decomposes to a scale of 1');

  const glb = await exportModel(converted.lods[0].glb, {
    format: 'glb',
    bound: [],
    title: 'Spheres',
    unit: 'meter',
  });
  const exported = await readGlb(glb);
  assert.equal(partNodes(exported).length, PARTS);
  assert.deepEqual(unusedAccessors(exported), [], 'the instances’ placements and ids went with them');
  const used = exported
    .getRoot()
    .listExtensionsUsed()
    .map((extension) => extension.extensionName);
  assert.ok(!used.includes('EXT_mesh_gpu_instancing') && !used.includes(EXT_INSTANCE_FEATURES));
});

void test('a source’s own instance feature ids go with its instances, which become parts', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const buffer = document.getRoot().listBuffers()[0] ?? document.createBuffer();
  const accessor = (type: 'SCALAR' | 'VEC3', values: number[]) =>
    document.createAccessor().setType(type).setArray(new Float32Array(values)).setBuffer(buffer);
  const batch = document
    .createExtension(EXTMeshGPUInstancing)
    .createInstancedMesh()
    .setAttribute('TRANSLATION', accessor('VEC3', [0, 0, 0, 1, 0, 0, 2, 0, 0]))
    .setAttribute('_FEATURE_ID_0', accessor('SCALAR', [0, 1, 2]));
  const features = document.createExtension(EXTInstanceFeatures);
  const trees = document
    .createNode('trees')
    .setMesh(addSphere(document, 8, 6, 0.3))
    .setExtension('EXT_mesh_gpu_instancing', batch)
    .setExtension(
      EXT_INSTANCE_FEATURES,
      features
        .createInstanceFeatures()
        .addFeatureID(features.createFeatureID().setFeatureCount(3).setAttribute(0)),
    );
  scene.addChild(trees);
  const result = await convert(document, 'trees');
  assert.equal(result.parts.length, 3, 'each instance a part');
  for (const lod of result.lods) {
    const level = await readGlb(lod.glb);
    const used = level
      .getRoot()
      .listExtensionsUsed()
      .map((extension) => extension.extensionName);
    assert.ok(!used.includes(EXT_INSTANCE_FEATURES), `LOD ${lod.level} names no instance feature ids`);
    assert.deepEqual(await validationErrors(lod.glb), []);
  }
});

/** The accessors of a document that nothing but the document's root refers to. */
function unusedAccessors(document: Document): string[] {
  const root = document.getRoot();
  return root
    .listAccessors()
    .filter((accessor) => accessor.listParents().every((parent) => parent === root))
    .map((accessor) => `${accessor.getType()} × ${accessor.getCount()}`);
}

void test('every level splits back into a node per part where the part was', async () => {
  for (const lod of [converted.lods[0], ...fine.lods]) {
    const document = await readGlb(lod.glb);
    splitFeatureParts(document);
    const nodes = partNodes(document);
    assert.deepEqual(
      nodes.map((node) => node.getExtras().group_id as string).sort(),
      [...centres.keys()].sort(),
      `LOD ${lod.level}: each part once`,
    );
    // LOD 0 is exact; the quantized levels stand on a 14-bit grid of a model about 12 m wide.
    const tolerance = lod.level === 0 ? 1e-5 : 5e-3;
    for (const node of nodes) {
      const groupId = node.getExtras().group_id as string;
      const centre = worldCentre(node);
      centres.get(groupId)!.forEach((value, axis) => {
        assert.ok(
          Math.abs(value - centre[axis]!) < tolerance,
          `LOD ${lod.level} ${groupId}: ${centre} where it was at ${centres.get(groupId)}`,
        );
      });
    }
    const used = document
      .getRoot()
      .listExtensionsUsed()
      .map((extension) => extension.extensionName);
    assert.ok(!used.includes(EXT_INSTANCE_FEATURES) && !used.includes('EXT_mesh_gpu_instancing'));
  }
});

void test('an export of an instanced level writes one object per part', async () => {
  const options = { bound: [], title: 'Spheres', unit: 'meter' } as const;
  const obj = await exportModel(converted.lods[0].glb, { ...options, format: 'obj' });
  const entry = (await zipEntries(obj)).find((each) => each.name.endsWith('.obj'))!;
  const names = entry.data.toString('utf8').match(/^o .*$/gm) ?? [];
  assert.equal(names.length, PARTS);
  assert.equal(new Set(names).size, PARTS, 'each object its own part');
});

void test('a thumbnail of an instanced level paints one bound part and leaves the other instances', async () => {
  const options = { width: 64, height: 64, supersample: 1 };
  const plain = await renderThumbnailDetailed(converted.lods[0].glb, options);
  const red = new Map([['p13', { color: [1, 0, 0] as [number, number, number], alpha: 1 }]]);
  const painted = await renderThumbnailDetailed(converted.lods[0].glb, {
    ...options,
    materialOverrides: red,
  });
  assert.equal(painted.triangleCount, plain.triangleCount, 'every instance still drawn once');
  const pixels = await sharp(painted.png).raw().toBuffer({ resolveWithObject: true });
  let reds = 0;
  for (let at = 0; at < pixels.data.length; at += pixels.info.channels) {
    if (pixels.data[at]! > 100 && pixels.data[at + 1]! < 40 && pixels.data[at + 2]! < 40) reds++;
  }
  assert.ok(
    reds > 0 && reds < pixels.info.width * pixels.info.height * 0.05,
    `one part painted (${reds} px)`,
  );
});

/** The nodes of a document that draw a part. */
function partNodes(document: Document): Node[] {
  return document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh() && typeof node.getExtras().group_id === 'string');
}
