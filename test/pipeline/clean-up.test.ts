import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import { EXTMeshGPUInstancing, EXTMeshoptCompression } from '@gltf-transform/extensions';
import { cleanUp } from '../../src/pipeline/clean-up.ts';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { addRawMesh, addSphere, emptyDocument, recordingContext } from './documents.ts';

void test('keeps every mesh node, even when their meshes are identical', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  for (const name of ['Left', 'Right'])
    scene.addChild(document.createNode(name).setMesh(addSphere(document, 8, 4, 2)));
  await cleanUp(document, {}, recordingContext());
  const meshNodes = document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh());
  assert.deepEqual(
    meshNodes.map((node) => node.getName()),
    ['Left', 'Right'],
  );
  // Identical accessors (positions, normals, UVs, indices) are shared; each node still counts as a part.
  assert.equal(document.getRoot().listAccessors().length, 4);
  assert.equal(document.getRoot().listMeshes().length, 1);
  assert.equal(computeStats(document).triangle_count, 2 * 2 * 8 * 3);
});

void test('welds a non-indexed triangle soup into an indexed mesh without losing triangles', async () => {
  const document = emptyDocument();
  // Two triangles sharing an edge, written as six separate vertices.
  const quad = [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0];
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Quad').setMesh(addRawMesh(document, quad)));
  await cleanUp(document, {}, recordingContext());
  const primitive = document.getRoot().listMeshes()[0].listPrimitives()[0];
  assert.ok(primitive.getIndices());
  assert.equal(primitive.getAttribute('POSITION')!.getCount(), 4);
  assert.equal(computeStats(document).triangle_count, 2);
});

void test('turns strips and fans into triangle lists', async () => {
  const document = emptyDocument();
  const five = [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 2, 0];
  const scene = document.getRoot().listScenes()[0];
  scene.addChild(
    document.createNode('Strip').setMesh(addRawMesh(document, five, Primitive.Mode.TRIANGLE_STRIP)),
  );
  scene.addChild(document.createNode('Fan').setMesh(addRawMesh(document, five, Primitive.Mode.TRIANGLE_FAN)));
  await cleanUp(document, {}, recordingContext());
  const modes = document
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives().map((primitive) => primitive.getMode()));
  assert.deepEqual(modes, [Primitive.Mode.TRIANGLES, Primitive.Mode.TRIANGLES]);
  assert.equal(computeStats(document).triangle_count, 6);
});

void test('expands GPU instancing into one part node per instance', async () => {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const instancing = document.createExtension(EXTMeshGPUInstancing);
  const translations = document
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 3, 0, 0, 6, 0, 0]))
    .setBuffer(buffer);
  const node = document
    .createNode('Columns')
    .setMesh(addSphere(document, 8, 4))
    .setExtension(
      'EXT_mesh_gpu_instancing',
      instancing.createInstancedMesh().setAttribute('TRANSLATION', translations),
    );
  document.getRoot().listScenes()[0].addChild(node);
  await cleanUp(document, {}, recordingContext());
  assert.equal(document.getRoot().listExtensionsUsed().length, 0);
  const parts = extractParts(document, { modelId: 'm' }, recordingContext());
  assert.equal(parts.length, 3);
  assert.deepEqual(
    parts.map((part) => Math.round(part.bounds.max[0])),
    [1, 4, 7],
  );
});

void test('drops compression extensions, unused materials and extra buffers', async () => {
  const document = emptyDocument();
  document.createExtension(EXTMeshoptCompression).setRequired(true);
  document.createMaterial('Unused');
  const second = document.createBuffer('second');
  const mesh = addSphere(document, 8, 4);
  mesh.listPrimitives()[0].getAttribute('NORMAL')!.setBuffer(second);
  document.getRoot().listScenes()[0].addChild(document.createNode('Ball').setMesh(mesh));
  await cleanUp(document, {}, recordingContext());
  const root = document.getRoot();
  assert.deepEqual(root.listExtensionsUsed(), []);
  assert.deepEqual(
    root.listMaterials().map((material) => material.getName()),
    ['Grey'],
  );
  assert.equal(root.listBuffers().length, 1);
  assert.ok(root.listAccessors().every((accessor) => accessor.getBuffer() === root.listBuffers()[0]));
});
