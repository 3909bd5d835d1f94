import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { reorder } from '@gltf-transform/functions';
import { MeshoptEncoder } from 'meshoptimizer';
import { linearReorder } from '../../src/pipeline/lods/linear-reorder.ts';
import { addSphere, emptyDocument } from './documents.ts';

/** Spheres of one topology and other sizes sharing one index list, one of them a mesh placed twice. */
function spheres(): Document {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const shared = addSphere(document, 12, 6, 1);
  const indices = shared.listPrimitives()[0].getIndices()!;
  for (let i = 0; i < 5; i++) {
    const mesh = addSphere(document, 12, 6, 1 + i / 4);
    mesh.listPrimitives()[0].setIndices(indices);
    scene.addChild(document.createNode(`sphere ${i}`).setMesh(mesh));
  }
  scene.addChild(document.createNode('a').setMesh(shared));
  scene.addChild(document.createNode('b').setMesh(shared));
  return document;
}

/** Each node's indices and attributes, as arrays. */
function dump(document: Document): unknown[] {
  return document
    .getRoot()
    .listNodes()
    .map((node) =>
      node
        .getMesh()!
        .listPrimitives()
        .map((primitive) => [
          Array.from(primitive.getIndices()!.getArray()!),
          primitive.getIndices()!.getComponentSize(),
          ...primitive
            .listSemantics()
            .map((semantic) => [semantic, Array.from(primitive.getAttribute(semantic)!.getArray()!)]),
        ]),
    );
}

void test('reorders as glTF-Transform’s reorder does, shared index lists staying shared', async () => {
  await MeshoptEncoder.ready;
  const theirs = spheres();
  await theirs.transform(reorder({ encoder: MeshoptEncoder, target: 'size' }));
  const ours = spheres();
  await ours.transform(linearReorder({ encoder: MeshoptEncoder }));
  assert.deepEqual(dump(ours), dump(theirs));
  assert.notDeepEqual(dump(ours), dump(spheres()));
  assert.equal(ours.getRoot().listAccessors().length, theirs.getRoot().listAccessors().length);
  const lists = new Set(
    ours
      .getRoot()
      .listMeshes()
      .map((mesh) => mesh.listPrimitives()[0].getIndices()),
  );
  assert.equal(lists.size, 1);
});
