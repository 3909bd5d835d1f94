import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { cleanUp } from '../../src/pipeline/clean-up.ts';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { makeLods } from '../../src/pipeline/make-lods.ts';
import type { LodDocument } from '../../src/pipeline/make-lods.ts';
import { createNodeIO } from '../../src/pipeline/create-io.ts';
import { addRawMesh, addSphere, emptyDocument, readGlb, recordingContext } from './documents.ts';

/** Collects both levels, each written to GLB and read back as it is yielded (the levels share one document). */
async function allLods(
  document: Document,
  options: Partial<Parameters<typeof makeLods>[1]> = {},
): Promise<LodDocument[]> {
  const lods: LodDocument[] = [];
  for await (const lod of makeLods(
    document,
    { simplifier: MeshoptSimplifier, ...options },
    recordingContext(),
  )) {
    const io = await createNodeIO();
    lods.push({ level: lod.level, document: await readGlb(await io.writeBinary(lod.document)) });
  }
  return lods;
}

/** Triangles of the mesh on the node whose extras carry `groupId`. */
function partTriangles(document: Document, groupId: string): number {
  const node = document
    .getRoot()
    .listNodes()
    .find((candidate) => candidate.getExtras().group_id === groupId);
  assert.ok(node, `part ${groupId} is missing`);
  let triangles = 0;
  for (const primitive of node.getMesh()!.listPrimitives())
    triangles += primitive.getIndices()!.getCount() / 3;
  return triangles;
}

void test('a dense sphere falls to about half, then at most a quarter of its triangles', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ball').setMesh(addSphere(document, 96, 64)));
  await cleanUp(document, {}, recordingContext());
  const source = computeStats(document).triangle_count;
  assert.ok(source > 1000);
  const [lod1, lod2] = await allLods(document);
  const t1 = computeStats(lod1.document).triangle_count;
  const t2 = computeStats(lod2.document).triangle_count;
  assert.ok(t1 <= source * 0.5 * 1.5 && t1 >= source * 0.3, `LOD 1 has ${t1} of ${source}`);
  assert.ok(t2 <= source * 0.25 && t2 > 0, `LOD 2 has ${t2} of ${source}`);
  assert.ok(t2 < t1);
  // LOD 0 is left as it was.
  assert.equal(computeStats(document).triangle_count, source);
  // Simplification keeps the shape: the box barely moves.
  const b0 = computeStats(document).bounds;
  const b2 = computeStats(lod2.document).bounds;
  for (let axis = 0; axis < 3; axis++) assert.ok(Math.abs(b0.max[axis] - b2.max[axis]) < 0.1);
});

void test('every part node keeps its group_id, transform and extras in every level', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const shared = addSphere(document, 48, 32);
  const group = document.createNode('Group').setTranslation([1, 2, 3]);
  group.addChild(document.createNode('A').setMesh(shared).setExtras({ layer: 'x' }));
  group.addChild(document.createNode('B').setMesh(shared).setScale([2, 2, 2]));
  group.addChild(document.createNode('Tiny').setMesh(addRawMesh(document, [0, 0, 0, 1, 0, 0, 0, 1, 0])));
  scene.addChild(group);
  await cleanUp(document, {}, recordingContext());
  const parts = extractParts(document, { modelId: 'm' }, recordingContext());
  for (const lod of await allLods(document)) {
    const nodes = lod.document.getRoot().listNodes();
    assert.deepEqual(
      nodes.map((node) => node.getName()),
      ['Group', 'A', 'B', 'Tiny'],
    );
    for (const part of parts) assert.ok(partTriangles(lod.document, part.group_id) > 0);
    assert.deepEqual(nodes[1].getExtras(), { layer: 'x', group_id: 'm:0' });
    assert.deepEqual(nodes[0].getTranslation(), [1, 2, 3]);
    assert.deepEqual(nodes[2].getScale(), [2, 2, 2]);
    // A shared mesh is simplified once and stays shared.
    assert.equal(nodes[1].getMesh(), nodes[2].getMesh());
  }
});

void test('a mesh too small to reduce keeps its triangles', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Small').setMesh(addSphere(document, 6, 4)));
  await cleanUp(document, {}, recordingContext());
  const source = computeStats(document).triangle_count;
  assert.ok(source < 64);
  for (const lod of await allLods(document)) assert.equal(computeStats(lod.document).triangle_count, source);
});

void test('lines and points pass through untouched', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const positions = Array.from({ length: 300 }, (_, i) => Math.sin(i));
  scene.addChild(
    document.createNode('Wire').setMesh(addRawMesh(document, positions, Primitive.Mode.LINE_STRIP)),
  );
  scene.addChild(
    document.createNode('Cloud').setMesh(addRawMesh(document, positions, Primitive.Mode.POINTS)),
  );
  for (const lod of await allLods(document)) {
    const counts = lod.document
      .getRoot()
      .listMeshes()
      .map((mesh) => mesh.listPrimitives()[0].getAttribute('POSITION')!.getCount());
    assert.deepEqual(counts, [100, 100]);
  }
});

void test('ratios are options', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ball').setMesh(addSphere(document, 64, 48)));
  await cleanUp(document, {}, recordingContext());
  const source = computeStats(document).triangle_count;
  const [lod1, lod2] = await allLods(document, { ratios: [0.8, 0.4], tolerance: 1.1 });
  const t1 = computeStats(lod1.document).triangle_count;
  const t2 = computeStats(lod2.document).triangle_count;
  assert.ok(t1 > source * 0.6 && t1 <= source * 0.8 * 1.1, `LOD 1 has ${t1} of ${source}`);
  assert.ok(t2 > source * 0.2 && t2 <= source * 0.4 * 1.1, `LOD 2 has ${t2} of ${source}`);
});

void test('a large mesh made of many small primitives still falls to a quarter', async () => {
  const document = emptyDocument();
  const pieces = document.createMesh('Pieces');
  for (let i = 0; i < 24; i++) {
    const piece = addSphere(document, 8, 4, 1 + i / 10, `piece-${i}`);
    pieces.addPrimitive(piece.listPrimitives()[0]);
  }
  document.getRoot().listScenes()[0].addChild(document.createNode('Assembly').setMesh(pieces));
  await cleanUp(document, {}, recordingContext());
  const source = computeStats(document).triangle_count;
  assert.ok(
    source > 1000 &&
      pieces.listPrimitives().every((primitive) => primitive.getIndices()!.getCount() / 3 < 64),
  );
  const [, lod2] = await allLods(document);
  const t2 = computeStats(lod2.document).triangle_count;
  assert.ok(t2 <= source * 0.25, `LOD 2 has ${t2} of ${source}`);
});
