// Parts of an OBJ that repeat another part moved share its mesh, each placed by its node: where every corner lands,
// and which copies must keep their own mesh.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Document, Node } from '@gltf-transform/core';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { importObj } from '../../src/pipeline/import/obj/import-obj.ts';
import { sharingStep } from '../../src/pipeline/import/obj/repeated-part-meshes.ts';
import { cornerPartsObjLines, type Corner } from '../helpers/corner-obj.ts';
import { recordingContext } from './support.ts';

let scratch: string;
before(async () => void (scratch = await mkdtemp(path.join(tmpdir(), 'vitrine-obj-repeats-'))));
after(() => rm(scratch, { recursive: true, force: true }));

/** A wedge of five corners and six faces (two quads cut by the importer), its low corner at the origin. */
const WEDGE: Corner[] = [
  [0, 0, 0],
  [2, 0, 0],
  [0, 1.5, 0],
  [0, 0, 0.75],
  [2, 0, 0.75],
];
const WEDGE_FACES = ['1 3 2', '4 5 3', '1 2 5 4', '1 4 3', '2 3 5'];

interface Placed {
  name: string;
  corners: Corner[];
  material?: string;
  /** Faces over `corners` (1-based), the wedge's unless given. */
  faces?: string[];
}

const moved = (by: Corner, corners: Corner[] = WEDGE): Corner[] =>
  corners.map(([x, y, z]) => [x + by[0], y + by[1], z + by[2]]);

/** An OBJ of named groups, each its corners and faces (the wedge's unless given), in the material given. */
async function objOf(parts: Placed[]): Promise<string> {
  const lines = [
    'mtllib colours.mtl',
    ...cornerPartsObjLines(
      parts.map((part) => ({
        ...part,
        faces: part.faces ?? WEDGE_FACES,
        material: part.material ?? 'grey',
      })),
    ),
  ];
  const dir = await mkdtemp(path.join(scratch, 'model-'));
  await writeFile(path.join(dir, 'colours.mtl'), 'newmtl grey\nKd 0.5 0.5 0.5\nnewmtl red\nKd 1 0 0\n');
  const file = path.join(dir, 'parts.obj');
  await writeFile(file, lines.join('\n') + '\n');
  return file;
}

async function read(parts: Placed[]): Promise<{ document: Document; byName: Map<string, Node> }> {
  const file = await objOf(parts);
  const { document } = await importObj.read(
    { file, dir: path.dirname(file), format: 'obj' },
    recordingContext(),
  );
  const byName = new Map(
    document
      .getRoot()
      .listNodes()
      .filter((node) => node.getMesh())
      .map((node) => [node.getName(), node]),
  );
  return { document, byName };
}

/** Every corner a node draws, in the scene's frame. */
function worldCorners(node: Node): Corner[] {
  const matrix = node.getWorldMatrix();
  const corners: Corner[] = [];
  for (const primitive of node.getMesh()!.listPrimitives()) {
    const position = primitive.getAttribute('POSITION')!;
    for (let i = 0; i < position.getCount(); i++) {
      const [x, y, z] = position.getElement(i, [0, 0, 0]) as Corner;
      const [wx, wy, wz] = [0, 1, 2].map(
        (row) => matrix[row] * x + matrix[4 + row] * y + matrix[8 + row] * z + matrix[12 + row],
      );
      corners.push([wx, wy, wz]);
    }
  }
  return corners;
}

/** Asserts that a part draws exactly the corners given (each within `tolerance`), no more. */
function assertCorners(node: Node, corners: Corner[], tolerance = 1e-5): void {
  const drawn = worldCorners(node);
  assert.equal(drawn.length, corners.length, `${node.getName()} draws ${corners.length} corners`);
  for (const corner of corners) {
    const near = drawn.some((found) =>
      found.every((value, axis) => Math.abs(value - corner[axis]) <= tolerance),
    );
    assert.ok(near, `${node.getName()} draws a corner at ${corner.join(', ')}`);
  }
}

void test('copies of a part moved share one mesh, each corner where the file put it', async () => {
  const offsets: Corner[] = [
    [0, 0, 0],
    [10.25, 0, 3],
    [-7, 2, 100.5],
    [1234.5, -0.125, 17],
  ];
  const parts: Placed[] = offsets.map((by, index) => ({ name: `copy ${index}`, corners: moved(by) }));
  const { document, byName } = await read(parts);
  assert.equal(document.getRoot().listMeshes().length, 1);
  for (const part of parts) assertCorners(byName.get(part.name)!, part.corners);
  // Each node is translated to its copy's low corner; the shared mesh starts at the origin.
  assert.deepEqual(byName.get('copy 2')!.getTranslation(), [-7, 2, 100.5]);
  // Parts listed from it keep their own bounds and the same shape.
  const listed = extractParts(document, { modelId: 'm' }, recordingContext());
  assert.deepEqual(
    listed.map((part) => part.bounds.min),
    offsets.map((by) => by),
  );
  assert.equal(new Set(listed.map((part) => part.fingerprint.geometry)).size, 1);
  assert.equal(new Set(listed.map((part) => part.fingerprint.transform)).size, offsets.length);
});

void test('a copy turned, in another material or with a corner moved keeps its own mesh, a single part its place', async () => {
  const turned = WEDGE.map(([x, y, z]): Corner => [-y + 20, x, z]);
  const bent = moved([30, 0, 0]);
  bent[2] = [30, 1.5, 0.01];
  const parts: Placed[] = [
    { name: 'first', corners: moved([0, 0, 0]) },
    { name: 'second', corners: moved([5, 0, 0]) },
    { name: 'turned', corners: turned },
    { name: 'red', corners: moved([10, 0, 0]), material: 'red' },
    { name: 'bent', corners: bent },
  ];
  const { document, byName } = await read(parts);
  assert.equal(byName.get('first')!.getMesh(), byName.get('second')!.getMesh());
  assert.equal(document.getRoot().listMeshes().length, 4);
  for (const name of ['turned', 'red', 'bent']) {
    const node = byName.get(name)!;
    assert.deepEqual(node.getTranslation(), [0, 0, 0], `${name} is not moved`);
    assert.notEqual(node.getMesh(), byName.get('first')!.getMesh(), name);
  }
  for (const part of parts) assertCorners(byName.get(part.name)!, part.corners);
});

void test('copies far from the origin share though their corners differ in the last place', async () => {
  // Written with four decimals, as exporters do: near x = 5,000 a float holds a corner to about 0.5 mm, so a wedge
  // 0.523 wide is 0.52295 wide at one place and 0.52344 at the other.
  const narrow = WEDGE.map(([x, y, z]): Corner => [x * 0.2615, y, z]);
  const far = (x: number): Corner[] =>
    moved([x, 0, 0], narrow).map(([cx, cy, cz]) => [Number(cx.toFixed(4)), cy, cz]);
  const places = [5000, 5011.2346];
  const widths = places.map((x) => Math.fround(Math.fround(x + 0.523) - Math.fround(x)));
  assert.notEqual(widths[0], widths[1], 'the copies differ as floats');
  const parts: Placed[] = places.map((x, index) => ({ name: `far ${index}`, corners: far(x) }));
  const { document, byName } = await read(parts);
  assert.equal(document.getRoot().listMeshes().length, 1);
  const step = sharingStep(new Float32Array([5012]));
  assert.ok(step < 0.002, `the step ${step} is a few units in the last place`);
  for (const part of parts) assertCorners(byName.get(part.name)!, part.corners, step);
});

void test('parts of one topology in other shapes keep their own meshes and read one index list', async () => {
  // Stretched, not moved: each part draws its own corners, but every wedge cuts its faces alike.
  const stretched = (by: number): Corner[] => WEDGE.map(([x, y, z]) => [x * by, y, z + by * 10]);
  const parts: Placed[] = [1, 2, 3].map((by) => ({ name: `stretched ${by}`, corners: stretched(by) }));
  const { document, byName } = await read(parts);
  assert.equal(document.getRoot().listMeshes().length, 3);
  for (const part of parts) assertCorners(byName.get(part.name)!, part.corners);
  const indexLists = new Set(
    [...byName.values()].flatMap((node) =>
      node
        .getMesh()!
        .listPrimitives()
        .map((primitive) => primitive.getIndices()),
    ),
  );
  assert.equal(indexLists.size, 1, 'one index accessor for the three parts');
  // A part of another topology has its own.
  const tetrahedron = { corners: WEDGE.slice(0, 4), faces: ['1 3 2', '1 2 4', '1 4 3', '2 3 4'] };
  const { document: mixed } = await read([...parts, { name: 'other', ...tetrahedron }]);
  const lists = mixed
    .getRoot()
    .listAccessors()
    .filter((accessor) => accessor.getType() === 'SCALAR');
  assert.equal(lists.length, 2);
});
