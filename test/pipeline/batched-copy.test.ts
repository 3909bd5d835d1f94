// A level's batched copy, made without copying the batched parts' meshes, is the same file as the document copied
// whole and batched in place, and the document is left as it was.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { cloneDocument } from '@gltf-transform/functions';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { BATCH_PARTS_DEFAULTS, batchParts } from '../../src/pipeline/lods/batch-parts.ts';
import { DRAWN_BY_FEATURES } from '../../src/pipeline/lods/retired-part-nodes.ts';
import { batchedCopy } from '../../src/pipeline/lods/batched-copy.ts';
import { addSphere, emptyDocument, quietLogger } from './documents.ts';

const context = { logger: quietLogger };

/**
 * 100 parts of two materials under the scene and a storey: every fourth draws one sphere many nodes share (kept
 * shared), two share a sphere between them (both batched), and one shares its sphere with an animated node (the
 * animated one keeps it), a part holds a child node, and a part is the joint of a skin.
 */
function manyParts(): Document {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const red = document.createMaterial('Red').setBaseColorFactor([1, 0, 0, 1]);
  const grey = document.createMaterial('Grey');
  const shared = addSphere(document, 8, 6, 0.3);
  const pair = addSphere(document, 6, 4, 0.25);
  const withAnimated = addSphere(document, 6, 4, 0.35);
  for (const mesh of [shared, pair, withAnimated]) mesh.listPrimitives()[0]!.setMaterial(grey);
  const storey = document.createNode('Storey').setExtras({ group_id: 'storey' });
  scene.addChild(storey);
  for (let i = 0; i < 100; i++) {
    let mesh = i % 4 === 0 ? shared : i === 1 || i === 2 ? pair : i === 3 ? withAnimated : null;
    if (!mesh) {
      mesh = addSphere(document, 8, 6, 0.2 + i / 1000);
      mesh.listPrimitives()[0]!.setMaterial(i % 2 ? red : grey);
    }
    const node = document
      .createNode(`part ${i}`)
      .setMesh(mesh)
      .setTranslation([i, 0, i % 2 ? -1 : 1])
      .setExtras({ group_id: `p${i}` });
    if (i === 5) node.addChild(document.createNode('Child'));
    (i < 10 ? storey : scene).addChild(node);
  }
  const joint = scene.listChildren().find((node) => node.getName() === 'part 17')!;
  scene.addChild(document.createNode('Rig').setSkin(document.createSkin('Rig').addJoint(joint)));
  const animated = document.createNode('Spinner').setMesh(withAnimated).setExtras({ group_id: 'spinner' });
  scene.addChild(animated);
  const times = document
    .createAccessor()
    .setType('SCALAR')
    .setArray(new Float32Array([0, 1]));
  const turns = document
    .createAccessor()
    .setType('VEC4')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 1, 0, 0]));
  const sampler = document.createAnimationSampler().setInput(times).setOutput(turns);
  document
    .createAnimation('Spin')
    .addSampler(sampler)
    .addChannel(
      document.createAnimationChannel().setTargetNode(animated).setTargetPath('rotation').setSampler(sampler),
    );
  return document;
}

void test('a batched copy is the document batched in place, and the document is left as it was', async () => {
  const io = await createNodeIO();
  const document = manyParts();
  const before = await io.writeBinary(document);

  const copy = batchedCopy(document, {}, context);
  assert.ok(copy, 'the parts are batched');
  assert.deepEqual(await io.writeBinary(document), before, 'the document is unchanged');

  const inPlace = cloneDocument(document);
  // The shared sphere's 25 parts all become its instances; the 3 in the storey stay in it, marked.
  assert.equal(batchParts(inPlace, {}, context), 100);
  assert.deepEqual(
    await io.writeBinary(copy),
    await io.writeBinary(inPlace),
    'the same file as batched in place',
  );

  const root = copy.getRoot();
  const spheres = root.listNodes().filter((node) => node.getMesh()?.getName() === 'Sphere');
  assert.equal(spheres.length, 1 + 1, 'the animated node’s and the instances’ node');
  assert.equal(spheres.filter((node) => node.getExtension('EXT_mesh_gpu_instancing')).length, 1);
  assert.ok(root.listNodes().some((node) => node.getExtras()[DRAWN_BY_FEATURES] === true));
  assert.equal(
    root.listMeshes().length,
    3,
    'the shared sphere, the animated node’s and the batch: no mesh of a batched part is copied',
  );
});

void test('a batched part that is a skin’s joint keeps its node, batched in place or copied', () => {
  for (const batched of [batchedCopy(manyParts(), {}, context)!, batchedInPlace(manyParts())]) {
    const skin = batched.getRoot().listSkins()[0]!;
    const joint = skin.listJoints()[0];
    assert.equal(joint?.getName(), 'part 17', 'the skin still has its joint');
    assert.equal(joint.getMesh(), null, 'its mesh is drawn by the batch');
    assert.equal(joint.getExtras()[DRAWN_BY_FEATURES], true);
    assert.ok(batched.getRoot().listScenes()[0]!.listChildren().includes(joint), 'and it stays in the scene');
  }
});

/** `document` batched in place. */
function batchedInPlace(document: Document): Document {
  batchParts(document, {}, context);
  return document;
}

void test('a document of few parts has no batched copy', () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  for (let i = 0; i <= BATCH_PARTS_DEFAULTS.aboveParts - 1; i++) {
    scene.addChild(
      document
        .createNode(`part ${i}`)
        .setMesh(addSphere(document, 6, 4, 0.2))
        .setExtras({ group_id: `p${i}` }),
    );
  }
  assert.equal(batchedCopy(document, {}, context), null);
});
