import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Node } from '@gltf-transform/core';
import type { InstancedMesh } from '@gltf-transform/extensions';
import sharp from 'sharp';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { BATCH_PARTS_DEFAULTS, batchParts } from '../../src/pipeline/lods/batch-parts.ts';
import { BATCHED_CHILDREN, DRAWN_BY_FEATURES } from '../../src/pipeline/lods/retired-part-nodes.ts';
import type { RemovedPart } from '../../src/pipeline/lods/retired-part-nodes.ts';
import { batchedCopy } from '../../src/pipeline/lods/batched-copy.ts';
import type { ConversionResult } from '../../src/pipeline/types.ts';
import { renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { featureParts } from '../../src/render/scene/feature-group-ids.ts';
import { splitFeatureParts } from '../../src/render/scene/split-feature-parts.ts';
import { readPartHierarchy } from '../../src/review/bcf/part-hierarchy.ts';
import { exportModel } from '../../src/writers/export-model.ts';
import { zipEntries } from '../exports/support.ts';
import { MANY_PARTS_TRIANGLES_PER_GROUP, manyPartsObj } from '../fixtures/many-parts-obj.ts';
import {
  addSphere,
  emptyDocument,
  quietLogger,
  readGlb,
  tempDir,
  validationErrors,
  worldCentre,
} from './documents.ts';

const GROUPS = BATCH_PARTS_DEFAULTS.aboveParts + 36;
let scratch: Awaited<ReturnType<typeof tempDir>>;
let many: ConversionResult;

/** Converts a generated OBJ of `groups` boxes, one `o` group each, its levels compressed as served. */
async function convertBoxes(groups: number): Promise<ConversionResult> {
  const file = path.join(scratch.dir, `boxes-${groups}.obj`);
  await writeFile(file, manyPartsObj({ groups, kind: 'distinct' }));
  return convertModel({
    modelId: 'b',
    source: { file, dir: scratch.dir, format: 'obj' },
    logger: quietLogger,
    compressLods: 'meshopt',
  });
}

/** The group ids a level's feature ids resolve to, and how many primitives carry them. */
async function featureGroups(glb: Uint8Array): Promise<{ groupIds: Set<string>; primitives: number }> {
  const document = await readGlb(glb);
  const groupIds = new Set<string>();
  let primitives = 0;
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) {
      const parts = featureParts(primitive);
      if (!parts) continue;
      primitives++;
      for (const feature of new Set(Array.from(parts.vertexFeatures))) groupIds.add(parts.groupIds[feature]!);
    }
  }
  return { groupIds, primitives };
}

before(async () => {
  scratch = await tempDir();
  many = await convertBoxes(GROUPS);
});
after(() => scratch.remove());

void test('a model of many parts has batched levels: one primitive, every part a feature, valid glTF', async () => {
  assert.equal(many.parts.length, GROUPS, 'every part is still listed');
  const expected = new Set(many.parts.map((part) => part.group_id));
  for (const lod of many.lods) {
    const { groupIds, primitives } = await featureGroups(lod.glb);
    assert.equal(primitives, 1, `LOD ${lod.level}: one material, one primitive`);
    assert.deepEqual(groupIds, expected, `LOD ${lod.level} carries every part`);
    assert.deepEqual(await validationErrors(lod.glb), [], `LOD ${lod.level} is valid`);
    const nodes = (await readGlb(lod.glb)).getRoot().listNodes();
    assert.equal(nodes.filter((node) => node.getMesh()).length, 1, `LOD ${lod.level}: no node per part`);
  }
});

void test('a batched level splits back into a node per part with its own triangles', async () => {
  const document = await readGlb(many.lods[0].glb);
  assert.equal(splitFeatureParts(document), GROUPS);
  const partNodes = document
    .getRoot()
    .listNodes()
    .filter((node) => typeof node.getExtras().group_id === 'string' && node.getMesh());
  assert.deepEqual(
    partNodes.map((node) => node.getExtras().group_id),
    many.parts.map((part) => part.group_id),
    'in the order parts are listed',
  );
  for (const node of partNodes) {
    const triangles = node.getMesh()!.listPrimitives()[0]!.getIndices()!.getCount() / 3;
    assert.equal(triangles, MANY_PARTS_TRIANGLES_PER_GROUP, node.getName());
  }
  const used = document.getRoot().listExtensionsUsed();
  assert.ok(!used.some((extension) => extension.extensionName === 'EXT_mesh_features'));
});

void test('an export of a batched level writes one object per part', async () => {
  const options = { bound: [], title: 'Boxes', unit: 'meter' } as const;
  const obj = await exportModel(many.lods[0].glb, { ...options, format: 'obj' });
  const entry = (await zipEntries(obj)).find((each) => each.name.endsWith('.obj'))!;
  const text = entry.data.toString('utf8');
  assert.equal(text.match(/^o /gm)?.length, GROUPS);
  const glb = await readGlb(await exportModel(many.lods[0].glb, { ...options, format: 'glb' }));
  const exported = glb
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh() && typeof node.getExtras().group_id === 'string');
  assert.equal(exported.length, GROUPS);
});

void test('a thumbnail of a batched level draws every part and paints a bound part', async () => {
  const options = { width: 48, height: 48, supersample: 1 };
  const plain = await renderThumbnailDetailed(many.lods[0].glb, options);
  assert.equal(plain.triangleCount, GROUPS * MANY_PARTS_TRIANGLES_PER_GROUP);
  const red = new Map(
    many.parts.map((part) => [part.group_id, { color: [1, 0, 0] as [number, number, number], alpha: 1 }]),
  );
  const painted = await renderThumbnailDetailed(many.lods[0].glb, { ...options, materialOverrides: red });
  const pixels = await sharp(painted.png).raw().toBuffer({ resolveWithObject: true });
  let reds = 0;
  for (let at = 0; at < pixels.data.length; at += pixels.info.channels) {
    if (pixels.data[at]! > 100 && pixels.data[at + 1]! < 40 && pixels.data[at + 2]! < 40) reds++;
  }
  assert.ok(reds > 0, 'the bound colour reaches the batched parts');
});

void test('a model of few parts keeps a node per part', async () => {
  const few = await convertBoxes(12);
  const document = await readGlb(few.lods[0].glb);
  const tagged = document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh() && typeof node.getExtras().group_id === 'string');
  assert.equal(tagged.length, 12);
  assert.equal((await featureGroups(few.lods[0].glb)).primitives, 0);
});

void test('shared meshes stay shared, as instances but where mirrored; parts under an object keep their place in the tree', () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const shared = addSphere(document, 8, 6, 0.3);
  // Turned and raised, so a part put back in it must be placed in its frame.
  const storey = document
    .createNode('Storey')
    .setExtras({ group_id: 'storey' })
    .setTranslation([0, 2, 0])
    .setRotation([0, Math.sin(Math.PI / 12), 0, Math.cos(Math.PI / 12)]);
  scene.addChild(storey);
  const parts = 100;
  for (let i = 0; i < parts; i++) {
    // Every fourth part draws the one shared sphere; the others have a mesh of their own.
    const mesh = i % 4 === 0 ? shared : addSphere(document, 8, 6, 0.2 + i / 1000);
    const node = document
      .createNode(`part ${i}`)
      .setMesh(mesh)
      .setTranslation([i, 0, i % 2 ? -1 : 1])
      .setScale(i % 3 === 0 ? [-1, 1, 1] : [1, 1, 1])
      .setExtras({ group_id: `p${i}` });
    (i < 10 ? storey : scene).addChild(node);
  }
  const before = new Map(
    document
      .getRoot()
      .listNodes()
      .filter((node) => node.getMesh())
      .map((node) => [node.getExtras().group_id as string, worldCentre(node)]),
  );
  const facing = new Map(
    document
      .getRoot()
      .listNodes()
      .filter((node) => node.getMesh())
      .map((node) => [node.getExtras().group_id as string, facesFollowNormals(node)]),
  );
  // Of the 25 parts drawing the shared sphere, 9 are mirrored: those keep their nodes. The others become instances,
  // those in the storey staying in it marked.
  const instanced = 25 - 9;
  assert.equal(batchParts(document, {}, { logger: quietLogger }), parts - parts / 4 + instanced);
  const kept = document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh() === shared);
  const instancing = kept.filter((node) => node.getExtension('EXT_mesh_gpu_instancing'));
  assert.equal(instancing.length, 1, 'one node draws the shared mesh’s instances');
  assert.equal(
    instancing[0]!
      .getExtension<InstancedMesh>('EXT_mesh_gpu_instancing')!
      .getAttribute('TRANSLATION')!
      .getCount(),
    instanced,
  );
  assert.equal(kept.length - 1, parts / 4 - instanced, 'the others still drawn by their nodes');
  const listed = storey.getExtras()[BATCHED_CHILDREN] as RemovedPart[];
  assert.deepEqual(
    listed.map((entry) => entry.extras.group_id),
    [1, 2, 3, 5, 6, 7, 9, 4, 8].map((i) => `p${i}`),
    'parts in the storey but the mirrored instance are listed on it, batched ones first, then instanced',
  );
  assert.deepEqual(storey.listChildren().length, 10 - listed.length, 'their nodes are gone');

  splitFeatureParts(document);
  const nodes = document.getRoot().listNodes();
  const ids = nodes.map((node) => node.getExtras().group_id).filter((id) => typeof id === 'string');
  assert.equal(ids.length, new Set(ids).size, 'no group id written twice');
  assert.ok(nodes.every((node) => node.getExtras()[DRAWN_BY_FEATURES] === undefined));
  assert.ok(
    nodes.every((node) => node.getExtras()[BATCHED_CHILDREN] === undefined),
    'the lists are dropped',
  );
  const inStorey = storey.listChildren().filter((node) => node.getMesh());
  assert.equal(inStorey.length, 10, 'the parts of the storey are drawn in it again');
  for (const node of nodes) {
    const groupId = node.getExtras().group_id;
    if (!node.getMesh() || typeof groupId !== 'string') continue;
    const centre = worldCentre(node);
    assert.equal(
      facesFollowNormals(node),
      facing.get(groupId),
      `${groupId} faces as it did, mirrored or not`,
    );
    before.get(groupId)!.forEach((value, axis) => assert.ok(Math.abs(value - centre[axis]!) < 1e-5, groupId));
  }
});

void test('the node tree of a batched level still says which parts an object holds', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const storey = document.createNode('Storey').setExtras({ group_id: 'storey' });
  scene.addChild(storey);
  for (let i = 0; i < BATCH_PARTS_DEFAULTS.aboveParts + 1; i++) {
    storey.addChild(
      document
        .createNode(`wall ${i}`)
        .setMesh(addSphere(document, 6, 4, 0.1 + i / 1000))
        .setExtras({ group_id: `w${i}` }),
    );
  }
  batchParts(document, {}, { logger: quietLogger });
  const glb = await (await createNodeIO()).writeBinary(document);
  const hierarchy = readPartHierarchy(glb, (id) => id.startsWith('w'));
  assert.equal(hierarchy.get('storey')?.parts.length, BATCH_PARTS_DEFAULTS.aboveParts + 1);
});

/**
 * Whether each triangle of a node's first primitive winds towards its first vertex's normal, in its own data: a
 * mirroring matrix turns both around, so baking one in keeps the answer only when the winding is swapped too.
 */
function facesFollowNormals(node: Node): boolean {
  const primitive = node.getMesh()!.listPrimitives()[0]!;
  const position = primitive.getAttribute('POSITION')!;
  const normal = primitive.getAttribute('NORMAL')!;
  const indices = primitive.getIndices()!.getArray()!;
  const corner = (index: number) => position.getElement(index, []);
  for (let at = 0; at < indices.length; at += 3) {
    const [a, b, c] = [corner(indices[at]!), corner(indices[at + 1]!), corner(indices[at + 2]!)];
    const u = [b[0]! - a[0]!, b[1]! - a[1]!, b[2]! - a[2]!];
    const v = [c[0]! - a[0]!, c[1]! - a[1]!, c[2]! - a[2]!];
    const face = [
      u[1]! * v[2]! - u[2]! * v[1]!,
      u[2]! * v[0]! - u[0]! * v[2]!,
      u[0]! * v[1]! - u[1]! * v[0]!,
    ];
    if (Math.hypot(...face) < 1e-9) continue;
    const n = normal.getElement(indices[at]!, []);
    if (face[0]! * n[0]! + face[1]! * n[1]! + face[2]! * n[2]! <= 0) return false;
  }
  return true;
}

void test('a small shape placed a few times is baked into the batch; placed often enough, it is drawn as instances', () => {
  const placed = (copies: number) => {
    const document = emptyDocument();
    const scene = document.getRoot().listScenes()[0]!;
    // A sphere of 8 × 6 segments: 4 copies hold fewer than 300 vertices in all, 10 copies more.
    const shared = addSphere(document, 8, 6, 0.3);
    for (let i = 0; i < 100; i++) {
      const mesh = i < copies ? shared : addSphere(document, 8, 6, 0.2 + i / 1000);
      scene.addChild(
        document
          .createNode(`part ${i}`)
          .setMesh(mesh)
          .setTranslation([i, 0, 0])
          .setExtras({ group_id: `p${i}` }),
      );
    }
    assert.equal(batchParts(document, {}, { logger: quietLogger }), 100);
    return document
      .getRoot()
      .listNodes()
      .filter((node) => node.getExtension('EXT_mesh_gpu_instancing')).length;
  };
  assert.equal(placed(4), 0, 'four copies of 63 vertices are baked');
  assert.equal(placed(10), 1, 'ten copies are instances of one node');
});

void test('a part holding another keeps it in the tree through a batched copy and its split', () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  for (let i = 0; i < BATCH_PARTS_DEFAULTS.aboveParts; i++) {
    const outer = document
      .createNode(`outer ${i}`)
      .setMesh(addSphere(document, 8, 6, 0.3 + i / 1000))
      .setTranslation([i, 1, 0])
      .setRotation([0, 0, Math.sin(i / 10), Math.cos(i / 10)])
      .setExtras({ group_id: `o${i}` });
    const inner = document
      .createNode(`inner ${i}`)
      .setMesh(addSphere(document, 8, 6, 0.1 + i / 1000))
      .setTranslation([0, 0.5, 0])
      .setExtras({ group_id: `i${i}` });
    scene.addChild(outer.addChild(inner));
  }
  const centres = new Map(
    document
      .getRoot()
      .listNodes()
      .map((node) => [node.getExtras().group_id as string, worldCentre(node)]),
  );
  const copy = batchedCopy(document, {}, { logger: quietLogger })!;
  const outers = copy
    .getRoot()
    .listNodes()
    .filter((node) => node.getExtras()[DRAWN_BY_FEATURES] === true);
  assert.equal(outers.length, BATCH_PARTS_DEFAULTS.aboveParts, 'each outer part stays, marked');
  assert.ok(outers.every((node) => (node.getExtras()[BATCHED_CHILDREN] as unknown[]).length === 1));
  splitFeatureParts(copy);
  for (const node of copy.getRoot().listNodes()) {
    const groupId = node.getExtras().group_id as string | undefined;
    if (!groupId) continue;
    assert.ok(node.getMesh(), `${groupId} draws its part again`);
    if (groupId.startsWith('i'))
      assert.equal(node.getParentNode()?.getExtras().group_id, `o${groupId.slice(1)}`);
    centres
      .get(groupId)!
      .forEach((value, axis) => assert.ok(Math.abs(value - worldCentre(node)[axis]!) < 1e-5));
  }
});
