import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import { MeshoptEncoder } from 'meshoptimizer';
import { cloneSharingData } from '../../src/gltf/clone-sharing-data.ts';
import { compressLod } from '../../src/pipeline/lods/compress-lod.ts';
import { addRawMesh, addSphere, emptyDocument, quietLogger } from '../pipeline/documents.ts';

/** A sphere (indexed, textured) and a point cloud (unindexed) on nodes of their own. */
function sphereAndPoints(): Document {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const sphere = addSphere(document, 24, 12);
  const texture = document
    .createTexture('Checker')
    .setImage(new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]))
    .setMimeType('image/png');
  sphere.listPrimitives()[0].getMaterial()!.setBaseColorTexture(texture);
  scene.addChild(document.createNode('Ball').setMesh(sphere));
  scene.addChild(
    document
      .createNode('Points')
      .setMesh(addRawMesh(document, [0, 0, 0, 1, 0, 0, 0, 1, 0], Primitive.Mode.POINTS)),
  );
  return document;
}

/** Every accessor's values and every image's bytes, copied. */
function snapshot(document: Document): number[][] {
  const root = document.getRoot();
  return [
    ...root.listAccessors().map((accessor) => Array.from(accessor.getArray()!)),
    ...root.listTextures().map((texture) => Array.from(texture.getImage()!)),
  ];
}

void test('the copy shares indexed vertex data and images, and copies the rest', () => {
  const document = sphereAndPoints();
  const copy = cloneSharingData(document);
  const [ball, points] = document
    .getRoot()
    .listMeshes()
    .map((mesh) => mesh.listPrimitives()[0]);
  const [ballCopy, pointsCopy] = copy
    .getRoot()
    .listMeshes()
    .map((mesh) => mesh.listPrimitives()[0]);
  assert.equal(ballCopy.getIndices()!.getArray(), ball.getIndices()!.getArray(), 'indices shared');
  for (const semantic of ball.listSemantics())
    assert.equal(
      ballCopy.getAttribute(semantic)!.getArray(),
      ball.getAttribute(semantic)!.getArray(),
      semantic,
    );
  assert.notEqual(
    pointsCopy.getAttribute('POSITION')!.getArray(),
    points.getAttribute('POSITION')!.getArray(),
  );
  assert.deepEqual(
    pointsCopy.getAttribute('POSITION')!.getArray(),
    points.getAttribute('POSITION')!.getArray(),
  );
  assert.equal(copy.getRoot().listTextures()[0].getImage(), document.getRoot().listTextures()[0].getImage());
  assert.deepEqual(
    ballCopy.getIndices()!.getComponentType(),
    ball.getIndices()!.getComponentType(),
    'component types kept',
  );
  assert.notEqual(ballCopy, ball, 'the properties themselves are copies');
});

void test('compressing a level, quantized or not, leaves the document it was made from as it was', async () => {
  for (const quantize of [true, false]) {
    const document = sphereAndPoints();
    const before = snapshot(document);
    const level = await compressLod(document, { encoder: MeshoptEncoder, quantize }, { logger: quietLogger });
    assert.notEqual(level, document);
    assert.deepEqual(snapshot(document), before, `quantize: ${quantize}`);
    const ball = level.getRoot().listMeshes()[0].listPrimitives()[0];
    assert.notEqual(
      ball.getAttribute('POSITION')!.getArray(),
      document.getRoot().listMeshes()[0].listPrimitives()[0].getAttribute('POSITION')!.getArray(),
      'the level holds vertex data of its own',
    );
  }
});
