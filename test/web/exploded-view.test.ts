// The exploded view along the assembly's hierarchy: the steps from the parts' paths and boxes, the slider opening
// them a level at a time (subassemblies apart first, then the parts within them), a flat model exploding as a
// radial one, and the meshes put back exactly at 0, also after a level's new meshes replaced a part's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Box3, BoxGeometry, Group, Mesh, Vector3 } from 'three';
import {
  explodeOffset,
  explodeSteps,
  stageFactors,
  type ExplodePart,
} from '../../web/src/view-tools/explode-hierarchy.ts';
import { ExplodedView, MAX_EXPLODE } from '../../web/src/view-tools/exploded-view.ts';

/** A unit box centred at (x, y, 0). */
function boxAt(x: number, y = 0): Box3 {
  return new Box3(new Vector3(x - 0.5, y - 0.5, -0.5), new Vector3(x + 0.5, y + 0.5, 0.5));
}

/**
 * Two subassemblies of two parts each: Left's parts at x -4 and -2, Right's at 2 and 4, both under a top node
 * "Scene" as a glTF's root often is.
 */
const ASSEMBLY = new Map<string, ExplodePart>([
  ['l1', { path: 'Scene/Left', box: boxAt(-4) }],
  ['l2', { path: 'Scene/Left', box: boxAt(-2) }],
  ['r1', { path: 'Scene/Right', box: boxAt(2) }],
  ['r2', { path: 'Scene/Right', box: boxAt(4) }],
]);

/** Each part's centre moved by its offset at `factor`. */
function explodedCentres(parts: ReadonlyMap<string, ExplodePart>, factor: number): Map<string, Vector3> {
  const { steps, stages } = explodeSteps(parts, new Vector3());
  const factors = stageFactors(factor, stages, MAX_EXPLODE);
  return new Map(
    [...parts].map(([id, part]) => [
      id,
      part.box.getCenter(new Vector3()).add(explodeOffset(steps.get(id)!, factors)),
    ]),
  );
}

/** The gap between two centres of `centres`. */
function gap(centres: Map<string, Vector3>, a: string, b: string): number {
  return centres.get(a)!.distanceTo(centres.get(b)!);
}

void describe('explode steps along the hierarchy', () => {
  void test('a two-level assembly has two stages; a step of a node with one child spends none', () => {
    const { steps, stages } = explodeSteps(ASSEMBLY, new Vector3());
    assert.equal(stages, 2);
    // Scene → Left (stage 1), Left → l1 (stage 2); Scene itself is the root's only child.
    assert.deepEqual(
      steps.get('l1')!.map((step) => [step.stage, step.vector.toArray()]),
      [
        [1, [0, 0, 0]],
        [1, [-3, 0, 0]],
        [2, [-1, 0, 0]],
      ],
    );
  });

  void test('halfway, the subassemblies are apart and their parts still together; at the end both are apart', () => {
    const assembled = explodedCentres(ASSEMBLY, 0);
    const half = explodedCentres(ASSEMBLY, MAX_EXPLODE / 2);
    const full = explodedCentres(ASSEMBLY, MAX_EXPLODE);
    // Subassemblies separate from each other: Left's right part and Right's left part move apart.
    assert.ok(gap(half, 'l2', 'r1') > gap(assembled, 'l2', 'r1') + 1, 'Left and Right separate first');
    // … carrying their parts as they are.
    assert.equal(gap(half, 'l1', 'l2'), gap(assembled, 'l1', 'l2'));
    assert.equal(gap(half, 'r1', 'r2'), gap(assembled, 'r1', 'r2'));
    // Then the parts separate within their subassembly, which stays where the first stage took it.
    assert.equal(gap(full, 'l1', 'l2'), 2 * (1 + MAX_EXPLODE));
    assert.equal(gap(full, 'r1', 'r2'), 2 * (1 + MAX_EXPLODE));
    const middle = (centres: Map<string, Vector3>, a: string, b: string) =>
      centres.get(a)!.clone().add(centres.get(b)!).multiplyScalar(0.5);
    assert.deepEqual(middle(full, 'l1', 'l2'), middle(half, 'l1', 'l2'));
    assert.deepEqual(middle(half, 'l1', 'l2').toArray(), [-3 * (1 + MAX_EXPLODE), 0, 0]);
    // Fully open, the steps add up to each part's distance from the model's centre.
    for (const [id, part] of ASSEMBLY)
      assert.deepEqual(
        full.get(id)!.toArray(),
        part.box
          .getCenter(new Vector3())
          .multiplyScalar(1 + MAX_EXPLODE)
          .toArray(),
      );
  });

  void test('at 0 every part stays where it is', () => {
    const { steps, stages } = explodeSteps(ASSEMBLY, new Vector3());
    const factors = stageFactors(0, stages, MAX_EXPLODE);
    for (const id of ASSEMBLY.keys())
      assert.deepEqual(explodeOffset(steps.get(id)!, factors).toArray(), [0, 0, 0]);
  });

  void test('a flat model, at the top or under one root node, moves each part along the line from the centre', () => {
    const centre = new Vector3(0.25, 0, 0);
    for (const path of ['', 'Scene']) {
      const parts = new Map<string, ExplodePart>([
        ['a', { path, box: boxAt(-1.5) }],
        ['b', { path, box: boxAt(0, 2) }],
        ['c', { path, box: boxAt(1.5) }],
      ]);
      const { steps, stages } = explodeSteps(parts, centre);
      assert.equal(stages, 1, `one stage (path "${path}")`);
      for (const factor of [0.3, 1, MAX_EXPLODE]) {
        const factors = stageFactors(factor, stages, MAX_EXPLODE);
        for (const [id, part] of parts) {
          const radial = part.box.getCenter(new Vector3()).sub(centre).multiplyScalar(factor);
          const offset = explodeOffset(steps.get(id)!, factors);
          assert.ok(offset.distanceTo(radial) < 1e-12, `${id} at ${factor} (path "${path}")`);
        }
      }
    }
  });

  void test('the slider opens the stages one after the other', () => {
    assert.deepEqual(stageFactors(0, 3, 1.5), [0, 0, 0]);
    assert.deepEqual(stageFactors(0.25, 3, 1.5), [0.75, 0, 0]);
    assert.deepEqual(stageFactors(0.75, 3, 1.5), [1.5, 0.75, 0]);
    assert.deepEqual(stageFactors(1.5, 3, 1.5), [1.5, 1.5, 1.5]);
  });
});

/** A unit cube mesh placed at (x, y, 0) in `parent`'s frame. */
function cube(parent: Group, x: number, y = 0): Mesh {
  const mesh = new Mesh(new BoxGeometry(1, 1, 1));
  mesh.position.set(x, y, 0);
  parent.add(mesh);
  return mesh;
}

void describe('the exploded view on meshes', () => {
  void test('moves meshes in a scaled, rotated frame by world offsets and puts them back exactly at 0', () => {
    const scene = new Group();
    // A level's root in centimetres, turned a quarter about z: world offsets must be taken into its frame.
    const root = new Group();
    root.scale.setScalar(0.01);
    root.rotation.z = Math.PI / 2;
    scene.add(root);
    scene.updateMatrixWorld(true);
    const meshes = { l1: cube(root, -400), l2: cube(root, -200), r1: cube(root, 200), r2: cube(root, 400) };
    const paths = new Map(Object.keys(meshes).map((id) => [id, id[0] === 'l' ? 'Left' : 'Right']));
    const parts = new Map(Object.entries(meshes).map(([id, mesh]) => [id, [mesh]]));
    const homes = Object.values(meshes).map((mesh) => mesh.position.clone());
    scene.updateMatrixWorld(true);
    const worldOf = (mesh: Mesh) => mesh.getWorldPosition(new Vector3());
    const before = Object.values(meshes).map(worldOf);

    const exploded = new ExplodedView(paths);
    exploded.set(parts, new Vector3(), MAX_EXPLODE / 2);
    // Halfway: Left moved as a whole away from the centre (along world −y after the quarter turn).
    const l1 = worldOf(meshes.l1).sub(before[0]!);
    const l2 = worldOf(meshes.l2).sub(before[1]!);
    assert.ok(l1.distanceTo(l2) < 1e-9, 'the parts of Left move together');
    assert.ok(l1.y < -1 && Math.abs(l1.x) < 1e-9, `Left moves away along −y (${l1.toArray().join(', ')})`);
    exploded.set(parts, new Vector3(), MAX_EXPLODE);
    assert.ok(worldOf(meshes.l1).distanceTo(worldOf(meshes.l2)) > 2 + 1, 'then they separate');

    exploded.set(parts, new Vector3(), 0);
    Object.values(meshes).forEach((mesh, at) => assert.deepEqual(mesh.position, homes[at], 'back exactly'));
  });

  void test('new meshes of a part (a level or tiles changed) follow the factor, and 0 puts them back', () => {
    const scene = new Group();
    const left = [cube(scene, -4), cube(scene, -2)];
    const right = [cube(scene, 2), cube(scene, 4)];
    scene.updateMatrixWorld(true);
    const paths = new Map([
      ['l1', 'Left'],
      ['l2', 'Left'],
      ['r1', 'Right'],
      ['r2', 'Right'],
    ]);
    const parts = new Map([
      ['l1', [left[0]!]],
      ['l2', [left[1]!]],
      ['r1', [right[0]!]],
      ['r2', [right[1]!]],
    ]);
    const exploded = new ExplodedView(paths);
    exploded.set(parts, new Vector3(), 1);
    const moved = left[0]!.position.clone();
    // Another level: l1's mesh is replaced by a new one, loaded assembled where the old one was.
    scene.remove(left[0]!);
    const replacement = cube(scene, -4);
    scene.updateMatrixWorld(true);
    parts.set('l1', [replacement]);
    exploded.update(parts, new Vector3());
    assert.deepEqual(replacement.position, moved, 'the new mesh takes the old one’s exploded place');
    exploded.set(parts, new Vector3(), 0);
    assert.deepEqual(replacement.position.toArray(), [-4, 0, 0]);
    assert.deepEqual(
      right.map((mesh) => mesh.position.x),
      [2, 4],
    );
  });
});
