// The walk over a document's mesh nodes gives each its world matrix, multiplied once down the tree, where the stages
// of a conversion called Node.getWorldMatrix per part: the two must agree to the bit, or a part's bounds, fingerprint
// and baked vertices would move with the stage that read them.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Document } from '@gltf-transform/core';
import type { Node, vec3, vec4 } from '@gltf-transform/core';
import { listMeshNodes } from '../../src/gltf/measure-geometry.ts';

/** A unit quaternion about the axis (x, y, z), normalised, turning by `angle` radians. */
function turn(x: number, y: number, z: number, angle: number): vec4 {
  const length = Math.hypot(x, y, z);
  const s = Math.sin(angle / 2) / length;
  return [x * s, y * s, z * s, Math.cos(angle / 2)];
}

void it('gives every mesh node in scene order its ancestors and the world matrix getWorldMatrix gives', () => {
  const document = new Document();
  const mesh = document.createMesh('shared');
  const scene = document.createScene('scene');
  document.getRoot().setDefaultScene(scene);
  const placed = (name: string, translation: vec3, rotation: vec4, scale: vec3): Node =>
    document.createNode(name).setTranslation(translation).setRotation(rotation).setScale(scale);
  // Three levels of awkward transforms: non-uniform and mirroring scales, turns about skew axes, far translations.
  const site = placed('site', [1e5 + 0.1, -3.3, 7e4], turn(0, 1, 0, 0.3), [0.001, 0.001, 0.001]);
  const storey = placed('storey', [12.7, 3.1, -0.9], turn(1, 2, 3, 1.1), [1, -2.5, 1]);
  const first = placed('first', [0.1, 0.2, 0.3], turn(-1, 0.5, 2, -2.2), [3, 0.7, 1.3]).setMesh(mesh);
  const second = placed('second', [-4, 5, 6], turn(0, 0, 1, Math.PI / 3), [1, 1, 1]).setMesh(mesh);
  const top = placed('top', [2, 0, 0], turn(1, 1, 0, 0.7), [2, 2, 2]).setMesh(mesh);
  // A mirror under a move by negative amounts: entries that are sums of negative zeros, which stay negative.
  const moved = placed('moved', [-1, -5, -2], [0, 0, 0, 1], [1, 1, 1]);
  const mirrored = placed('mirrored', [0, 0, 0], [0, 0, 0, 1], [-1, 1, 1]).setMesh(mesh);
  scene.addChild(site).addChild(top).addChild(moved);
  moved.addChild(mirrored);
  site.addChild(storey);
  storey.addChild(first).addChild(second);

  const found = listMeshNodes(document);
  assert.deepEqual(
    found.map(({ node, ancestors }) => [node.getName(), ancestors.map((each) => each.getName())]),
    [
      ['first', ['site', 'storey']],
      ['second', ['site', 'storey']],
      ['top', []],
      ['mirrored', ['moved']],
    ],
  );
  assert.ok(Object.is(found[3].world[1], -0), 'a negative zero to keep');
  for (const { node, world } of found) {
    // Object.is tells a negative zero from a positive one: every entry, bit for bit.
    const expected = node.getWorldMatrix();
    world.forEach((value, index) =>
      assert.ok(Object.is(value, expected[index]), `${node.getName()}[${index}]`),
    );
  }
});
