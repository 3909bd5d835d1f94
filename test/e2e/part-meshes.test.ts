// How the viewer maps three.js objects to parts: the mesh GLTFLoader makes is the tagged node or its child.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Object3D } from 'three';
import { BoxGeometry, Group, Mesh, MeshBasicMaterial } from 'three';
import { collectPartMeshes, countTriangles, groupIdOf } from '../../web/src/viewer/part-meshes.ts';

function tagged<T extends Object3D>(object: T, groupId: string): T {
  object.userData.group_id = groupId;
  return object;
}

/** A scene like GLTFLoader builds: a one-primitive node is the mesh; a multi-primitive node is a group of meshes. */
function scene(): { root: Group; single: Mesh; first: Mesh; second: Mesh; nested: Mesh } {
  const material = new MeshBasicMaterial();
  const single = tagged(new Mesh(new BoxGeometry(), material), 'part-a');
  const first = new Mesh(new BoxGeometry(), material);
  const second = new Mesh(new BoxGeometry(), material);
  const multi = tagged(new Group(), 'part-b');
  multi.add(first, second);
  // A part node under another part node belongs to itself, not to its parent.
  const nested = tagged(new Mesh(new BoxGeometry(), material), 'part-c');
  single.add(nested);
  const root = new Group();
  root.add(single, multi, new Mesh(new BoxGeometry(), material));
  return { root, single, first, second, nested };
}

void test('groupIdOf finds the tag on the mesh itself or its nearest ancestor', () => {
  const { root, single, second, nested } = scene();
  assert.equal(groupIdOf(single), 'part-a');
  assert.equal(groupIdOf(second), 'part-b');
  assert.equal(groupIdOf(nested), 'part-c');
  assert.equal(groupIdOf(root), null);
  assert.equal(groupIdOf(null), null);
});

void test('collectPartMeshes lists each part with the meshes that draw it and skips untagged ones', () => {
  const { root, single, first, second, nested } = scene();
  const parts = collectPartMeshes(root);
  assert.deepEqual([...parts.keys()].sort(), ['part-a', 'part-b', 'part-c']);
  assert.deepEqual(parts.get('part-a'), [single]);
  assert.deepEqual(parts.get('part-b'), [first, second]);
  assert.deepEqual(parts.get('part-c'), [nested]);
});

void test('countTriangles sums indexed and non-indexed meshes', () => {
  const { root } = scene();
  // Five boxes of 12 triangles each.
  assert.equal(countTriangles(root), 60);
  const loose = new Mesh(new BoxGeometry().toNonIndexed(), new MeshBasicMaterial());
  assert.equal(countTriangles(loose), 12);
});
