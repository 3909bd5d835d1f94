// The merged drawing of a batched level's parts (web/src/viewer/part-batches.ts), on three.js objects without a
// renderer: the parts still plain are drawn by one mesh per primitive and material whose index joins theirs, their
// own meshes are kept off the camera's layer for the frame only, and a part hidden, moved, painted alone or detached
// from the scene leaves the merged index, which is rebuilt only when its members change.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { MeshBasicMaterial, Scene } from 'three';
import type { BufferGeometry, Material, Mesh, Object3D } from 'three';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { drawing as drawingOf, frame } from '../helpers/plain-draw-frames.ts';
import { PartBatches } from '../../web/src/viewer/part-batches.ts';
import { createPartsLoader, splitByPart } from '../../web/src/viewer/tile-parts.ts';
import { batchedSphereRow } from '../pipeline/documents.ts';

const PARTS = 80;

/** A batched level of PARTS spheres, half red and half grey, loaded and split as the viewer does. */
async function loadSplitLevel(): Promise<{ scene: Scene; model: Object3D; parts: Map<string, Mesh[]> }> {
  const { document } = batchedSphereRow(PARTS, 4);
  const glb = await (await createNodeIO()).writeBinary(document);
  const gltf = await createPartsLoader().parseAsync(glb.slice().buffer, '');
  const parts = splitByPart(gltf.scene);
  const scene = new Scene();
  scene.add(gltf.scene);
  return { scene, model: gltf.scene, parts };
}

/** The merged meshes drawing now. */
const drawing = (batches: PartBatches) => drawingOf<Mesh<BufferGeometry, Material>>(batches);

/** The triangles a geometry draws (within its draw range), each as its three vertex indices, sorted. */
function triangles(geometry: BufferGeometry): string[] {
  const index = geometry.index!.array;
  const end = Math.min(index.length, geometry.drawRange.start + geometry.drawRange.count);
  const list: string[] = [];
  for (let at = geometry.drawRange.start; at < end; at += 3)
    list.push(`${index[at]},${index[at + 1]},${index[at + 2]}`);
  return list.sort();
}

/** The triangles of the given part meshes together, sorted. */
function trianglesOf(meshes: Mesh[]): string[] {
  return meshes.flatMap((mesh) => triangles(mesh.geometry)).sort();
}

void describe('merged drawing of a batched level', () => {
  let scene: Scene;
  let model: Object3D;
  let parts: Map<string, Mesh[]>;
  let all: Mesh[];
  const batches = new PartBatches();

  before(async () => {
    ({ scene, model, parts } = await loadSplitLevel());
    all = [...parts.values()].flat();
  });

  void test('plain parts are drawn by one mesh per material, their own meshes only off the frame', () => {
    assert.equal(all.length, PARTS, 'one mesh per part');
    const materials = new Set(all.map((mesh) => mesh.material as Material));
    assert.equal(materials.size, 2);
    frame(batches, parts, scene, () => {
      const merged = drawing(batches);
      assert.equal(merged.length, 2, 'one merged mesh per material');
      assert.equal(batches.meshesDrawn, 2);
      assert.equal(batches.partsHeld, PARTS);
      for (const mesh of merged) {
        const members = all.filter((part) => part.material === mesh.material);
        assert.deepEqual(
          triangles(mesh.geometry),
          trianglesOf(members),
          'the index joins its parts’ triangles',
        );
        assert.equal(mesh.geometry.getAttribute('position'), members[0]!.geometry.getAttribute('position'));
        // Placed where the primitive was, in the world.
        members[0]!.updateWorldMatrix(true, false);
        assert.ok(mesh.matrixWorld.equals(members[0]!.matrixWorld));
      }
      assert.ok(
        all.every((mesh) => mesh.layers.mask === 0),
        'the parts are kept out of the frame',
      );
      assert.ok(
        all.every((mesh) => mesh.visible),
        'and still read as shown',
      );
    });
    assert.ok(
      all.every((mesh) => mesh.layers.mask === 1),
      'every part is back on its layer after the frame',
    );
  });

  void test('a split part is bounded by its own triangles, a merged mesh by its primitive', () => {
    // The spheres stand a metre apart along x with radii under 0.3.
    for (const mesh of all) {
      const box = mesh.geometry.boundingBox!;
      assert.ok(box.max.x - box.min.x < 0.6, `${mesh.name}: ${box.min.x}..${box.max.x}`);
    }
    frame(batches, parts, scene, () => {
      for (const mesh of drawing(batches)) assert.ok(mesh.geometry.boundingSphere!.radius > PARTS / 2 - 1);
    });
  });

  void test('a still frame keeps the merged index as it was', () => {
    const versions = () => drawing(batches).map((mesh) => mesh.geometry.index!.version);
    const before = frame(batches, parts, scene, versions);
    const after = frame(batches, parts, scene, versions);
    assert.equal(before.length, 2);
    assert.deepEqual(after, before);
  });

  void test('a hidden part leaves the merged index and draws nothing; shown again, it is back', () => {
    const hidden = parts.get('p3')![0]!;
    hidden.visible = false;
    frame(batches, parts, scene, () => {
      const mesh = drawing(batches).find((merged) => merged.material === hidden.material)!;
      const members = all.filter((part) => part.material === hidden.material && part !== hidden);
      assert.deepEqual(triangles(mesh.geometry), trianglesOf(members));
      assert.equal(batches.partsHeld, PARTS - 1);
    });
    hidden.visible = true;
    frame(batches, parts, scene, () => assert.equal(batches.partsHeld, PARTS));
  });

  void test('a part moved (exploded) or painted alone draws itself; parts painted alike draw merged', () => {
    const moved = parts.get('p4')![0]!;
    const alone = parts.get('p5')![0]!;
    const [first, second] = [parts.get('p6')![0]!, parts.get('p8')![0]!];
    const originals = [moved, alone, first, second].map((mesh) => mesh.material);
    const own = new MeshBasicMaterial();
    const shared = new MeshBasicMaterial();
    moved.position.x += 1;
    alone.material = own;
    first.material = shared;
    second.material = shared;
    frame(batches, parts, scene, () => {
      assert.equal(moved.layers.mask, 1, 'the moved part draws itself');
      assert.equal(alone.layers.mask, 1, 'the part painted alone draws itself');
      const painted = drawing(batches).find((mesh) => mesh.material === shared);
      assert.ok(painted, 'two parts painted alike share a merged mesh');
      assert.deepEqual(triangles(painted.geometry), trianglesOf([first, second]));
      assert.equal(batches.meshesDrawn, 3);
      assert.equal(batches.partsHeld, PARTS - 2);
    });
    moved.position.x -= 1;
    [moved, alone, first, second].forEach((mesh, at) => (mesh.material = originals[at]!));
    frame(batches, parts, scene, () => {
      assert.equal(batches.meshesDrawn, 2, 'the group of the painted parts went with them');
      assert.equal(batches.group.children.length, 2);
      assert.equal(batches.partsHeld, PARTS);
    });
  });

  void test('parts out of the drawn scene are not drawn merged; parts gone free their merged meshes', () => {
    model.removeFromParent();
    frame(batches, parts, scene, () => assert.equal(batches.meshesDrawn, 0));
    scene.add(model);
    frame(batches, parts, scene, () => assert.equal(batches.meshesDrawn, 2));
    frame(batches, new Map(), scene, () => assert.equal(batches.meshesDrawn, 0));
    assert.equal(batches.group.children.length, 0);
    // The parts keep the vertex buffers the merged meshes shared.
    assert.ok(all.every((mesh) => mesh.geometry.getAttribute('position')));
  });
});
