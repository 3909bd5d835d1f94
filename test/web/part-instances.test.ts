// The instanced drawing of parts that share a mesh (web/src/viewer/part-instances.ts), on three.js objects without a
// renderer: the parts still plain are drawn by one InstancedMesh per geometry and material holding their world
// matrices, their own meshes are kept off the camera's layer for the frame only, a part moved under its parent (an
// exploded view) is drawn instanced where it is, and a part hidden or painted alone leaves the instanced draw and
// draws itself; the matrices are rebuilt only when the members, their placements or their parents' world matrices
// change, never for a camera move.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { Matrix4, MeshBasicMaterial, PerspectiveCamera, Raycaster, Scene, Vector3 } from 'three';
import type { InstancedMesh, Material, Mesh, Object3D } from 'three';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { collectPartMeshes } from '../../web/src/viewer/part-meshes.ts';
import { drawing as drawingOf, frame } from '../helpers/plain-draw-frames.ts';
import { PartInstances } from '../../web/src/viewer/part-instances.ts';
import { createPartsLoader, splitByPart } from '../../web/src/viewer/tile-parts.ts';
import { addSphere, emptyDocument } from '../pipeline/documents.ts';

const PARTS = 60;
/** Distinct meshes the parts share: the first red, the others grey. */
const MESHES = 3;

/** A row of PARTS nodes under one `Grid` node, each drawing one of MESHES shared meshes, loaded and split as the viewer does. */
async function loadSharedLevel(): Promise<{ scene: Scene; grid: Object3D; parts: Map<string, Mesh[]> }> {
  const document = emptyDocument();
  const red = document.createMaterial('Red').setBaseColorFactor([1, 0, 0, 1]).setDoubleSided(true);
  const grey = document.createMaterial('Grey').setDoubleSided(true);
  const meshes = Array.from({ length: MESHES }, (_, m) => {
    const mesh = addSphere(document, 6 + m, 4, 0.2 + m / 20, `Sphere ${m}`);
    mesh.listPrimitives()[0]!.setMaterial(m === 0 ? red : grey);
    return mesh;
  });
  const grid = document.createNode('Grid');
  document.getRoot().listScenes()[0]!.addChild(grid);
  for (let i = 0; i < PARTS; i++) {
    grid.addChild(
      document
        .createNode(`part ${i}`)
        .setMesh(meshes[i % MESHES]!)
        .setTranslation([i, 0, 0])
        .setExtras({ group_id: `p${i}` }),
    );
  }
  const glb = await (await createNodeIO()).writeBinary(document);
  const gltf = await createPartsLoader().parseAsync(glb.slice().buffer, '');
  splitByPart(gltf.scene);
  const parts = collectPartMeshes(gltf.scene);
  const scene = new Scene();
  scene.add(gltf.scene);
  return { scene, grid: gltf.scene.getObjectByName('Grid')!, parts };
}

/** The instanced meshes drawing now. */
const drawing = (instances: PartInstances) => drawingOf<InstancedMesh>(instances);

/** The world matrices an instanced mesh draws, each as its elements joined. */
function instanceMatrices(mesh: InstancedMesh): string[] {
  const matrix = new Matrix4();
  return Array.from({ length: mesh.count }, (_, at) => {
    mesh.getMatrixAt(at, matrix);
    return matrix.elements.map((value) => value.toFixed(5)).join(',');
  });
}

/** The world matrices of the given part meshes, as {@link instanceMatrices} writes them. */
function worldMatrices(meshes: Mesh[]): string[] {
  return meshes.map((mesh) => {
    mesh.updateWorldMatrix(true, false);
    return mesh.matrixWorld.elements.map((value) => value.toFixed(5)).join(',');
  });
}

void describe('instanced drawing of parts sharing a mesh', () => {
  let scene: Scene;
  let grid: Object3D;
  let parts: Map<string, Mesh[]>;
  let all: Mesh[];
  const instances = new PartInstances();
  /** The instanced mesh drawing `part`'s geometry with its material this frame. */
  const drawerOf = (part: Mesh) =>
    drawing(instances).find((mesh) => mesh.geometry === part.geometry && mesh.material === part.material);
  /** The parts drawn alike with `part` (same geometry and material), in the model's order. */
  const alike = (part: Mesh) =>
    all.filter((other) => other.geometry === part.geometry && other.material === part.material);

  before(async () => {
    ({ scene, grid, parts } = await loadSharedLevel());
    all = [...parts.values()].flat();
    // In the scene as the view has them, so a click could reach them.
    scene.add(instances.group);
  });

  void test('plain parts are drawn by one instanced mesh per geometry and material, their own meshes only off the frame', () => {
    assert.equal(all.length, PARTS, 'one mesh per part');
    assert.equal(new Set(all.map((mesh) => mesh.geometry)).size, MESHES, 'the nodes share the meshes');
    frame(instances, parts, scene, () => {
      const instanced = drawing(instances);
      assert.equal(instanced.length, MESHES, 'one instanced mesh per shared mesh');
      assert.equal(instances.meshesDrawn, MESHES);
      assert.equal(instances.partsHeld, PARTS);
      for (const mesh of instanced) {
        const members = all.filter((part) => part.geometry === mesh.geometry);
        assert.equal(
          mesh.material,
          members[0]!.material,
          'the parts’ own material, so paint and sections apply',
        );
        assert.deepEqual(instanceMatrices(mesh), worldMatrices(members), 'each instance where its part is');
        for (const part of members) {
          const bounds = part.geometry.boundingSphere!.clone().applyMatrix4(part.matrixWorld);
          assert.ok(mesh.boundingSphere!.containsPoint(bounds.center), 'culled as all its instances');
          assert.ok(mesh.boundingSphere!.radius >= bounds.radius);
        }
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

  void test('a click goes through the instanced meshes to the parts', () => {
    const ray = new Raycaster(new Vector3(0.03, 0.05, 5), new Vector3(0, 0, -1));
    frame(instances, parts, scene, () => {
      for (const mesh of drawing(instances)) assert.deepEqual(ray.intersectObject(mesh), []);
    });
    assert.equal(drawing(instances).length, MESHES, 'the instanced meshes stay in the scene between frames');
    const hits = ray.intersectObject(scene, true);
    const part = parts.get('p0')![0]!;
    assert.ok(
      hits.every((hit) => hit.object === part),
      'only the part itself is hit',
    );
    assert.ok(hits.length > 0);
  });

  void test('a still frame or a camera move keeps the instance matrices as they were', () => {
    const camera = new PerspectiveCamera();
    scene.add(camera);
    const versions = () => drawing(instances).map((mesh) => mesh.instanceMatrix.version);
    const before = frame(instances, parts, scene, versions);
    camera.position.set(10, 20, 30);
    camera.lookAt(0, 0, 0);
    const after = frame(instances, parts, scene, versions);
    camera.removeFromParent();
    assert.equal(before.length, MESHES);
    assert.deepEqual(after, before);
  });

  void test('a hidden part leaves the instanced draw; shown again, it is back', () => {
    const hidden = parts.get('p3')![0]!;
    const version = frame(instances, parts, scene, () => drawerOf(hidden)!.instanceMatrix.version);
    hidden.visible = false;
    frame(instances, parts, scene, () => {
      const mesh = drawerOf(hidden)!;
      assert.ok(mesh.instanceMatrix.version > version, 'rebuilt');
      const members = alike(hidden).filter((part) => part !== hidden);
      assert.deepEqual(instanceMatrices(mesh), worldMatrices(members));
      assert.equal(instances.partsHeld, PARTS - 1);
      assert.equal(hidden.layers.mask, 1, 'it is not held out either');
    });
    hidden.visible = true;
    frame(instances, parts, scene, () => {
      assert.equal(instances.partsHeld, PARTS);
      assert.deepEqual(instanceMatrices(drawerOf(hidden)!), worldMatrices(alike(hidden)));
    });
  });

  void test('a part moved (exploded) stays instanced where it is now; one painted alone draws itself; parts painted alike draw instanced', () => {
    const moved = parts.get('p4')![0]!;
    const alone = parts.get('p5')![0]!;
    // p6 and p9 share p0's (red) mesh; painted alike they make a group of their own.
    const [first, second] = [parts.get('p6')![0]!, parts.get('p9')![0]!];
    const originals = [moved, alone, first, second].map((mesh) => mesh.material as Material);
    const shared = new MeshBasicMaterial();
    moved.position.x += 0.5;
    alone.material = new MeshBasicMaterial();
    first.material = shared;
    second.material = shared;
    frame(instances, parts, scene, () => {
      assert.equal(moved.layers.mask, 0, 'the moved part is drawn instanced');
      assert.deepEqual(instanceMatrices(drawerOf(moved)!), worldMatrices(alike(moved)), 'where it is now');
      assert.equal(alone.layers.mask, 1, 'the part painted alone draws itself');
      assert.equal(drawerOf(alone), undefined);
      const painted = drawerOf(first);
      assert.ok(painted, 'two parts painted alike share an instanced mesh');
      assert.deepEqual(instanceMatrices(painted), worldMatrices([first, second]));
      assert.equal(instances.meshesDrawn, MESHES + 1);
      assert.equal(instances.partsHeld, PARTS - 1);
    });
    moved.position.x -= 0.5;
    [moved, alone, first, second].forEach((mesh, at) => (mesh.material = originals[at]!));
    frame(instances, parts, scene, () => {
      assert.deepEqual(instanceMatrices(drawerOf(moved)!), worldMatrices(alike(moved)), 'moved back');
      assert.equal(instances.meshesDrawn, MESHES, 'the group of the painted parts went with them');
      assert.equal(instances.group.children.length, MESHES);
      assert.equal(instances.partsHeld, PARTS);
    });
  });

  void test('a group left with one plain part lets it draw itself', () => {
    const red = all.filter((part) => part.geometry === parts.get('p0')![0]!.geometry);
    for (const part of red.slice(1)) part.visible = false;
    frame(instances, parts, scene, () => {
      assert.equal(red[0]!.layers.mask, 1, 'the last one draws itself');
      assert.equal(drawerOf(red[0]!), undefined);
      assert.equal(instances.meshesDrawn, MESHES - 1);
    });
    for (const part of red) part.visible = true;
  });

  void test('a moved parent rebuilds the matrices, which follow it', () => {
    const part = parts.get('p1')![0]!;
    const version = frame(instances, parts, scene, () => drawerOf(part)!.instanceMatrix.version);
    grid.position.y += 2;
    frame(instances, parts, scene, () => {
      const mesh = drawerOf(part)!;
      assert.ok(mesh.instanceMatrix.version > version, 'rebuilt');
      assert.deepEqual(instanceMatrices(mesh), worldMatrices(alike(part)));
      const centre = new Vector3().setFromMatrixPosition(part.matrixWorld);
      assert.equal(centre.y, 2);
      assert.ok(mesh.boundingSphere!.containsPoint(centre), 'the bounds moved with them');
    });
    grid.position.y -= 2;
  });

  void test('parts out of the drawn scene are not drawn instanced; parts gone free their instanced meshes', () => {
    const freed: string[] = [];
    const geometries = new Set(all.map((mesh) => mesh.geometry));
    for (const geometry of geometries) geometry.addEventListener('dispose', () => freed.push(geometry.uuid));
    grid.visible = false;
    frame(instances, parts, scene, () => assert.equal(instances.meshesDrawn, 0));
    grid.visible = true;
    frame(instances, parts, scene, () => assert.equal(instances.meshesDrawn, MESHES));
    frame(instances, new Map(), scene, () => assert.equal(instances.meshesDrawn, 0));
    assert.equal(instances.group.children.length, 0);
    assert.deepEqual(freed, [], 'the parts keep their geometries');
  });
});
