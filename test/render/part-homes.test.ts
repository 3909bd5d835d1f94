import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Document } from '@gltf-transform/core';
import type { Node, mat4, vec4 } from '@gltf-transform/core';
import { partHomes, placeSplitPart } from '../../src/render/scene/part-homes.ts';
import { BATCHED_CHILDREN, DRAWN_BY_FEATURES } from '../../src/pipeline/lods/retired-part-nodes.ts';

/** A quarter of a half turn about Z: 45°. */
const TURN_45: vec4 = [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)];

function assertSameMatrix(actual: mat4, expected: mat4, message: string): void {
  actual.forEach((value, at) => assert.ok(Math.abs(value - expected[at]!) < 1e-6, `${message} [${at}]`));
}

/** A storey listing one part it no longer holds, and the batched node that drew the part at the root. */
function listedPart(storeyScale: [number, number, number]): {
  document: Document;
  storey: Node;
  holder: Node;
} {
  const document = new Document();
  const scene = document.createScene();
  const storey = document
    .createNode('Storey')
    .setTranslation([0, 3, 0])
    .setScale(storeyScale)
    .setExtras({ [BATCHED_CHILDREN]: [{ name: 'Wall', extras: { group_id: 'wall', ifc_type: 'IfcWall' } }] });
  const holder = document.createNode('Batched parts');
  scene.addChild(storey).addChild(holder);
  return { document, storey, holder };
}

void test('a listed part goes back under its parent, placed in its frame', () => {
  const { document, storey, holder } = listedPart([2, 2, 2]);
  const homes = partHomes(document);
  const mesh = document.createMesh('wall');
  const part = {
    name: 'wall part',
    groupId: 'wall',
    mesh,
    local: { translation: [4, 5, 6] as [number, number, number], rotation: TURN_45 },
  };
  const drawnAt = holder.getWorldMatrix();
  const node = placeSplitPart(document, homes, holder, part);
  assert.equal(node.getParentNode(), storey);
  assert.equal(node.getName(), 'Wall');
  assert.deepEqual(node.getExtras(), { group_id: 'wall', ifc_type: 'IfcWall' });
  assert.equal(node.getMesh(), mesh);
  const expected = document.createNode().setTranslation([4, 5, 6]).setRotation(TURN_45);
  assertSameMatrix(node.getWorldMatrix(), expected.getWorldMatrix(), 'where it was drawn');
  assert.deepEqual(drawnAt, holder.getWorldMatrix());
  assert.equal(homes.has('wall'), false, 'its home is taken');
});

void test('a part whose place under its parent would need a shear stays under the node that drew it', () => {
  // A storey scaled unevenly cannot hold a turned part: its placement there would shear.
  const { document, storey, holder } = listedPart([2, 1, 1]);
  const homes = partHomes(document);
  const mesh = document.createMesh('wall');
  const node = placeSplitPart(document, homes, holder, {
    name: 'wall part',
    groupId: 'wall',
    mesh,
    local: { rotation: TURN_45 },
  });
  assert.equal(node.getParentNode(), holder);
  assert.equal(storey.listChildren().length, 0);
  assert.deepEqual(node.getExtras(), { group_id: 'wall' });
  assert.equal(node.getMesh(), mesh);
  assert.deepEqual(node.getRotation(), TURN_45);
  assert.equal(homes.has('wall'), true, 'its home is left for the lists to be dropped');
});

void test('a kept node takes the mesh when alone, and gives it a child where it places others', () => {
  const document = new Document();
  const scene = document.createScene();
  const storey = document.createNode('Storey').setTranslation([0, 3, 0]);
  const alone = document.createNode('Slab').setExtras({ group_id: 'slab', [DRAWN_BY_FEATURES]: true });
  const parent = document
    .createNode('Stair')
    .setTranslation([1, 0, 0])
    .setExtras({ group_id: 'stair', [DRAWN_BY_FEATURES]: true });
  parent.addChild(document.createNode('Flight').setExtras({ group_id: 'flight' }));
  const holder = document.createNode('Batched parts');
  scene.addChild(storey.addChild(alone).addChild(parent)).addChild(holder);
  const homes = partHomes(document);

  /** Splits the part `name` out, drawn at `translation` by the batched node. */
  const split = (name: string, translation: [number, number, number]) => {
    const mesh = document.createMesh(name);
    const node = placeSplitPart(document, homes, holder, {
      name,
      groupId: name,
      mesh,
      local: { translation },
    });
    return { node, mesh };
  };

  const slab = split('slab', [0, 3, 1]);
  assert.equal(slab.node, alone);
  assert.equal(alone.getMesh(), slab.mesh);
  assert.deepEqual(alone.getExtras(), { group_id: 'slab' }, 'no longer marked');
  assertSameMatrix(
    alone.getWorldMatrix(),
    document.createNode().setTranslation([0, 3, 1]).getMatrix(),
    'slab',
  );

  const stair = split('stair', [1, 3, 2]).node;
  assert.equal(stair.getParentNode(), parent, 'a child of the node that places the flight');
  assert.deepEqual(parent.getTranslation(), [1, 0, 0], 'which keeps its own placement');
  assert.equal(parent.getMesh(), null);
  assertSameMatrix(
    stair.getWorldMatrix(),
    document.createNode().setTranslation([1, 3, 2]).getMatrix(),
    'stair',
  );
});
