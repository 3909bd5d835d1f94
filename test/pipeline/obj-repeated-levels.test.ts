// An OBJ of many parts repeating a few shapes moved, through the whole conversion: the importer gives the copies one
// mesh, the levels draw each such mesh as instances and the other parts batched, and every level splits back into a
// part per group with each corner where the file put it, as an export writes them.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { Document, Node } from '@gltf-transform/core';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import type { ConversionResult } from '../../src/pipeline/types.ts';
import { splitFeatureParts } from '../../src/render/scene/split-feature-parts.ts';
import { exportModel } from '../../src/writers/export-model.ts';
import { zipEntries } from '../exports/support.ts';
import { cornerPartsObjLines, type Corner, type CornerPart } from '../helpers/corner-obj.ts';
import { quietLogger, readGlb, tempDir, validationErrors } from './documents.ts';

/** Two shapes the copies repeat, each corners and faces over them (1-based): a wedge and a tall tetrahedron. */
const SHAPES: { corners: Corner[]; faces: string[] }[] = [
  {
    corners: [
      [0, 0, 0],
      [2, 0, 0],
      [0, 1.5, 0],
      [0, 0, 0.75],
      [2, 0, 0.75],
    ],
    faces: ['1 3 2', '4 5 3', '1 2 5 4', '1 4 3', '2 3 5'],
  },
  {
    corners: [
      [0, 0, 0],
      [1, 0, 0],
      [0, 0, 1],
      [0.3, 2.5, 0.3],
    ],
    faces: ['1 2 3', '1 4 2', '2 4 3', '3 4 1'],
  },
];
/** Copies of each shape, on a grid, and parts of shapes of their own beside them. */
const COPIES = 90;
const SINGLES = 12;

/** Every part: its name and the corners the file places, in scene units. */
const parts: CornerPart[] = [];
for (let i = 0; i < COPIES * SHAPES.length; i++) {
  const shape = SHAPES[i % SHAPES.length]!;
  const at: Corner = [(i % 15) * 3, 0, Math.floor(i / 15) * 3];
  const corners = shape.corners.map(([x, y, z]): Corner => [x + at[0], y + at[1], z + at[2]]);
  parts.push({ name: `copy_${i}`, corners, faces: shape.faces });
}
for (let i = 0; i < SINGLES; i++) {
  // Each stretched its own way: no copy of another.
  const corners = SHAPES[0]!.corners.map(([x, y, z]): Corner => [x * (1 + i / 7), y, z - 10]);
  parts.push({ name: `single_${i}`, corners, faces: SHAPES[0]!.faces });
}

let scratch: Awaited<ReturnType<typeof tempDir>>;
let converted: ConversionResult;

before(async () => {
  scratch = await tempDir();
  const file = path.join(scratch.dir, 'repeats.obj');
  await writeFile(file, cornerPartsObjLines(parts).join('\n') + '\n');
  converted = await convertModel({
    modelId: 'repeats',
    source: { file, dir: scratch.dir, format: 'obj' },
    logger: quietLogger,
    compressLods: 'meshopt',
  });
});
after(() => scratch.remove());

/** The nodes of a split level that draw a part. */
function partNodes(document: Document): Node[] {
  return document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh() && typeof node.getExtras().group_id === 'string');
}

/** Every corner a node draws, in the scene's frame. */
function worldCorners(node: Node): Corner[] {
  const matrix = node.getWorldMatrix();
  const corners: Corner[] = [];
  for (const primitive of node.getMesh()!.listPrimitives()) {
    const position = primitive.getAttribute('POSITION')!;
    const indices = primitive.getIndices();
    const count = indices ? indices.getCount() : position.getCount();
    for (let i = 0; i < count; i++) {
      const [x, y, z] = position.getElement(indices ? indices.getScalar(i) : i, [0, 0, 0]) as Corner;
      corners.push(
        [0, 1, 2].map(
          (row) => matrix[row]! * x + matrix[4 + row]! * y + matrix[8 + row]! * z + matrix[12 + row]!,
        ) as Corner,
      );
    }
  }
  return corners;
}

/** The distinct corners of a list, rounded to `step`, as sorted keys. */
function cornerKeys(corners: Corner[], step: number): string[] {
  return [
    ...new Set(corners.map((corner) => corner.map((value) => Math.round(value / step)).join(','))),
  ].sort();
}

void test('the copies are drawn as instances of one node a shape, the other parts batched, in valid levels', async () => {
  assert.equal(converted.parts.length, parts.length);
  const document = await readGlb(converted.lods[0].glb);
  const instancing = document
    .getRoot()
    .listNodes()
    .filter((node) => node.getExtension('EXT_mesh_gpu_instancing'));
  assert.equal(instancing.length, SHAPES.length, 'a node of instances a shape');
  assert.ok(
    document.getRoot().listNodes().length < parts.length / 4,
    'far fewer nodes than parts: the singles are batched too',
  );
  for (const lod of converted.lods)
    assert.deepEqual(await validationErrors(lod.glb), [], `LOD ${lod.level} is valid`);
});

void test('every level splits back into a part per group, each corner where the file put it', async () => {
  const names = new Map(converted.parts.map((part) => [part.group_id, part.name]));
  const byName = new Map(parts.map((part) => [part.name, part]));
  for (const lod of converted.lods) {
    const document = await readGlb(lod.glb);
    splitFeatureParts(document);
    const nodes = partNodes(document);
    assert.equal(nodes.length, parts.length, `LOD ${lod.level}: a node a part`);
    // LOD 0 is exact; quantized levels stand on a 14-bit grid of a model about 45 m wide.
    const step = lod.level === 0 || !lod.reduced ? 1e-4 : 0.01;
    for (const node of nodes) {
      const part = byName.get(names.get(node.getExtras().group_id as string)!)!;
      assert.deepEqual(
        cornerKeys(worldCorners(node), step),
        cornerKeys(part.corners, step),
        `LOD ${lod.level} ${part.name}`,
      );
    }
  }
});

void test('an OBJ export of LOD 0 writes each part as an object of its own corners', async () => {
  const zip = await exportModel(converted.lods[0].glb, {
    bound: [],
    title: 'Repeats',
    unit: 'meter',
    format: 'obj',
  });
  const text = (await zipEntries(zip)).find((each) => each.name.endsWith('.obj'))!.data.toString('utf8');
  const objects = new Map<string, Corner[]>();
  let current: Corner[] | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('o ')) objects.set(line.slice(2).trim(), (current = []));
    else if (line.startsWith('v ')) current!.push(line.slice(2).trim().split(/\s+/).map(Number) as Corner);
  }
  assert.equal(objects.size, parts.length, 'an object a part');
  for (const part of parts) {
    const corners = objects.get(part.name);
    assert.ok(corners, `${part.name} is an object`);
    assert.deepEqual(cornerKeys(corners, 1e-4), cornerKeys(part.corners, 1e-4), part.name);
  }
});
