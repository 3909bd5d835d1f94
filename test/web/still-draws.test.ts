// The AR view's still model (web/src/share/still-draws.ts), on three.js objects without a renderer: meshes that
// share a geometry and material become one InstancedMesh, the rest one merged mesh per material, and the triangles
// drawn are the same, in the same places, facing the same way (a mirrored part keeps facing out).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Matrix4, Vector3 } from 'three';
import type { InstancedMesh, Material, Mesh, Object3D } from 'three';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { stillDraws } from '../../web/src/share/still-draws.ts';
import { createPartsLoader } from '../../web/src/viewer/tile-parts.ts';
import { addSphere, emptyDocument } from '../pipeline/documents.ts';

const SHARED_PARTS = 60;
const SHARED_MESHES = 3;
const OWN_PARTS = 20;

/** A model of parts drawing shared meshes (every seventh mirrored) and parts of their own, in two materials. */
async function loadModel(): Promise<Object3D> {
  const document = emptyDocument();
  const red = document.createMaterial('Red').setBaseColorFactor([1, 0, 0, 1]);
  const grey = document.createMaterial('Grey');
  const scene = document.getRoot().listScenes()[0]!;
  const grid = document.createNode('Grid').setTranslation([0, 2, 0]).setScale([2, 2, 2]);
  scene.addChild(grid);
  const shared = Array.from({ length: SHARED_MESHES }, (_, m) => {
    const mesh = addSphere(document, 6 + m, 4, 0.2 + m / 20, `Shared ${m}`);
    mesh.listPrimitives()[0]!.setMaterial(m === 0 ? red : grey);
    return mesh;
  });
  for (let i = 0; i < SHARED_PARTS; i++) {
    const node = document
      .createNode(`shared ${i}`)
      .setMesh(shared[i % SHARED_MESHES]!)
      .setTranslation([i, 0, 0])
      .setRotation([0, Math.sin(i / 4), 0, Math.cos(i / 4)]);
    if (i % 7 === 0) node.setScale([-1, 1, 1]);
    grid.addChild(node);
  }
  for (let i = 0; i < OWN_PARTS; i++) {
    const mesh = addSphere(document, 5, 3, 0.3, `Own ${i}`);
    mesh.listPrimitives()[0]!.setMaterial(i % 2 === 0 ? red : grey);
    const node = document.createNode(`own ${i}`).setMesh(mesh).setTranslation([i, -3, 1]);
    if (i % 5 === 0) node.setScale([1, -1, 1]);
    scene.addChild(node);
  }
  const glb = await (await createNodeIO()).writeBinary(document);
  return (await createPartsLoader().parseAsync(glb.slice().buffer, '')).scene;
}

/** A triangle drawn: its material's name and its corners in the order it faces. */
interface Drawn {
  material: string;
  corners: Vector3[];
}

/**
 * Every triangle drawn under `root`, in its coordinates, its corners in the order it faces: a mirrored placement
 * draws the other face, as three.js turns its front face round.
 */
function drawnTriangles(root: Object3D): Drawn[] {
  root.updateWorldMatrix(true, true);
  const toRoot = new Matrix4().copy(root.matrixWorld).invert();
  const list: Drawn[] = [];
  const add = (mesh: Mesh, matrix: Matrix4) => {
    const position = mesh.geometry.getAttribute('position');
    const index = mesh.geometry.index;
    const count = index ? index.count : position.count;
    const flip = matrix.determinant() < 0;
    for (let at = 0; at < count; at += 3) {
      const corners = [0, 1, 2].map((k) =>
        new Vector3().fromBufferAttribute(position, index ? index.getX(at + k) : at + k).applyMatrix4(matrix),
      );
      if (flip) corners.reverse();
      list.push({ material: (mesh.material as Material).name, corners });
    }
  };
  root.traverse((object) => {
    const mesh = object as Mesh;
    if (!mesh.isMesh) return;
    const world = new Matrix4().multiplyMatrices(toRoot, mesh.matrixWorld);
    if ((mesh as InstancedMesh).isInstancedMesh) {
      const instanced = mesh as InstancedMesh;
      const instance = new Matrix4();
      for (let at = 0; at < instanced.count; at++) {
        instanced.getMatrixAt(at, instance);
        add(mesh, new Matrix4().multiplyMatrices(world, instance));
      }
    } else add(mesh, world);
  });
  return list;
}

/** How far apart two drawn corners may be and still be one: float rounding of a placement baked or instanced. */
const TOLERANCE = 1e-4;

/** Whether `a` and `b` are one triangle facing one way: the same corners in the same turning order. */
function sameTriangle(a: Drawn, b: Drawn): boolean {
  if (a.material !== b.material) return false;
  return [0, 1, 2].some((turn) =>
    a.corners.every((corner, k) => corner.distanceTo(b.corners[(k + turn) % 3]!) < TOLERANCE),
  );
}

/** Asserts that `after` draws each triangle of `before` once, and nothing else. */
function assertSameTriangles(after: Drawn[], before: Drawn[]): void {
  assert.equal(after.length, before.length, 'as many triangles');
  // Looked up by their centroid's cell (and the cells beside it), so a match is found without comparing all pairs.
  const cell = (drawn: Drawn) =>
    drawn.corners
      .reduce((sum, corner) => sum.add(corner), new Vector3())
      .divideScalar(3)
      .multiplyScalar(10)
      .floor();
  const cells = new Map<string, Drawn[]>();
  for (const drawn of after) {
    const key = cell(drawn).toArray().join();
    cells.set(key, [...(cells.get(key) ?? []), drawn]);
  }
  for (const drawn of before) {
    const home = cell(drawn);
    let found = false;
    for (let dx = -1; dx <= 1 && !found; dx++)
      for (let dy = -1; dy <= 1 && !found; dy++)
        for (let dz = -1; dz <= 1 && !found; dz++) {
          const list = cells.get([home.x + dx, home.y + dy, home.z + dz].join()) ?? [];
          const at = list.findIndex((candidate) => sameTriangle(candidate, drawn));
          if (at >= 0) {
            list.splice(at, 1);
            found = true;
          }
        }
    const where = drawn.corners
      .map((corner) => corner.toArray().map((value) => value.toFixed(3)))
      .join(' | ');
    assert.ok(found, `${drawn.material} triangle ${where} is drawn, facing the same way`);
  }
}

/** The meshes under `root` that draw, each one call. */
function draws(root: Object3D): Mesh[] {
  const list: Mesh[] = [];
  root.traverse((object) => {
    if ((object as Mesh).isMesh) list.push(object as Mesh);
  });
  return list;
}

void describe('the still model of the AR view', () => {
  void test('shared meshes are drawn instanced and the rest merged by material, one call each', async () => {
    const model = await loadModel();
    assert.equal(draws(model).length, SHARED_PARTS + OWN_PARTS);
    assert.equal(stillDraws(model), SHARED_PARTS + OWN_PARTS);
    const after = draws(model);
    const instanced = after.filter((mesh) => (mesh as InstancedMesh).isInstancedMesh) as InstancedMesh[];
    assert.equal(instanced.length, SHARED_MESHES, 'one instanced mesh per shared mesh');
    const mirrored = Math.ceil(SHARED_PARTS / 7);
    assert.equal(
      instanced.reduce((sum, mesh) => sum + mesh.count, 0),
      SHARED_PARTS - mirrored,
      'every upright placement of a shared mesh is an instance',
    );
    const merged = after.filter((mesh) => !(mesh as InstancedMesh).isInstancedMesh);
    assert.deepEqual(merged.map((mesh) => (mesh.material as Material).name).sort(), ['Grey', 'Red']);
    assert.ok(after.length <= SHARED_MESHES + 2, `${after.length} draws`);
  });

  void test('the same triangles are drawn in the same places, facing the same way', async () => {
    const model = await loadModel();
    const before = drawnTriangles(model);
    stillDraws(model);
    assertSameTriangles(drawnTriangles(model), before);
  });

  void test('a model whose meshes cannot all be folded keeps the rest where they were', async () => {
    const model = await loadModel();
    const odd = draws(model)[0]!;
    odd.morphTargetInfluences = [0.5];
    const before = drawnTriangles(model);
    assert.equal(stillDraws(model), SHARED_PARTS + OWN_PARTS - 1);
    assert.ok(draws(model).includes(odd), 'the morphed mesh draws itself');
    assertSameTriangles(drawnTriangles(model), before);
  });
});
