import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { Document } from '@gltf-transform/core';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import { ConversionError, type ModelFormat } from '../../src/pipeline/types.ts';
import { recordingContext } from './support.ts';

let scratch: string;
before(async () => void (scratch = await mkdtemp(path.join(tmpdir(), 'vitrine-truncation-'))));
after(() => rm(scratch, { recursive: true, force: true }));

/** Longest any one cut may take to import or fail: a wedged importer would take minutes. */
const QUICK_MS = 2_000;

const asciiStl = `solid cut
facet normal 0 0 1
 outer loop
  vertex 0 0 0
  vertex 1 0 0
  vertex 0 1 0
 endloop
endfacet
endsolid cut
`;

function binaryStl(): Uint8Array {
  const bytes = Buffer.alloc(84 + 2 * 50);
  bytes.writeUInt32LE(2, 80);
  const corners = [
    [0, 0, 0, 1, 0, 0, 0, 1, 0],
    [1, 0, 0, 1, 1, 0, 0, 1, 0],
  ];
  corners.forEach((triangle, t) =>
    triangle.forEach((value, i) => bytes.writeFloatLE(value, 84 + t * 50 + 12 + i * 4)),
  );
  return bytes;
}

const plyHeader = (format: string) => `ply
format ${format} 1.0
comment a unit square
element vertex 4
property float x
property float y
property float z
property uchar red
property uchar green
property uchar blue
element face 1
property list uchar int vertex_indices
end_header
`;

function binaryPly(): Uint8Array {
  const body = Buffer.alloc(4 * 15 + 1 + 16);
  [
    [0, 0, 0],
    [1, 0, 0],
    [1, 1, 0],
    [0, 1, 0],
  ].forEach((corner, v) => {
    corner.forEach((value, i) => body.writeFloatLE(value, v * 15 + i * 4));
    body.set([255, 128, 0], v * 15 + 12);
  });
  body.writeUInt8(4, 60);
  [0, 1, 2, 3].forEach((index, i) => body.writeInt32LE(index, 61 + i * 4));
  return Buffer.concat([Buffer.from(plyHeader('binary_little_endian')), body]);
}

const asciiPly = `${plyHeader('ascii')}0 0 0 255 128 0
1 0 0 255 128 0
1 1 0 255 128 0
0 1 0 255 128 0
4 0 1 2 3
`;

const obj = `# a square
v 0 0 0
v 1 0 0
v 1 1 0
v 0 1 0
f 1 2 3 4
`;

/** Groups, materials, every index form, relative indices, CRLF and a continued line. */
const objWithParts = [
  'mtllib none.mtl',
  'v 0 0 0 1 0 0',
  'v 1 0 0 0 1 0',
  'v 1 1 0 0 0 1',
  'v 0 1 0',
  'vt 0 0',
  'vt 1 1',
  'vn 0 0 1',
  'g first',
  'usemtl wood',
  'f 1/1/1 2/2/1 3/2/1 4/1/1',
  'g second',
  's off',
  'f -4//-1 -3//-1 \\',
  '  -2//-1',
  'f 1/2 3/1 4/2',
  '',
].join('\r\n');

async function glb(): Promise<Uint8Array> {
  const document = new Document();
  const buffer = document.createBuffer();
  const position = document
    .createAccessor()
    .setType('VEC3')
    .setArray(new Float32Array([0, 0, 0, 1, 0, 0, 0, 1, 0]))
    .setBuffer(buffer);
  const mesh = document
    .createMesh('m')
    .addPrimitive(document.createPrimitive().setAttribute('POSITION', position));
  document.createScene().addChild(document.createNode('n').setMesh(mesh));
  return (await createNodeIO()).writeBinary(document);
}

const CASES: [name: string, format: ModelFormat, bytes: () => Promise<Uint8Array> | Uint8Array][] = [
  ['a binary STL', 'stl', binaryStl],
  ['an ASCII STL', 'stl', () => Buffer.from(asciiStl)],
  ['a binary PLY', 'ply', binaryPly],
  ['an ASCII PLY', 'ply', () => Buffer.from(asciiPly)],
  ['an OBJ', 'obj', () => Buffer.from(obj)],
  ['an OBJ with groups, materials and every index form', 'obj', () => Buffer.from(objWithParts)],
  ['a GLB', 'glb', glb],
];

for (const [name, format, make] of CASES) {
  void test(`${name} cut at every length fails quickly with a clear message, or imports`, async () => {
    const whole = await make();
    const dir = await mkdtemp(path.join(scratch, `${format}-`));
    const file = path.join(dir, `cut.${format}`);
    const outcomes = { failed: 0, imported: 0 };
    for (let length = 0; length <= whole.length; length++) {
      await writeFile(file, whole.subarray(0, length));
      const started = performance.now();
      try {
        await importerFor(format)!.read({ file, dir, format }, recordingContext());
        outcomes.imported++;
      } catch (error) {
        assert.ok(
          error instanceof ConversionError,
          `cut at ${length}: a ConversionError, not ${String(error)}`,
        );
        assert.match(
          error.message,
          /^(Could not read the [A-Z]+ file: .+|The file is empty|Invalid GLB: .+)$/,
        );
        outcomes.failed++;
      }
      const took = performance.now() - started;
      assert.ok(took < QUICK_MS, `cut at ${length} took ${Math.round(took)} ms`);
    }
    // The whole file imports, and so does no cut of a binary file's data.
    assert.ok(outcomes.imported >= 1);
    assert.ok(outcomes.failed >= whole.length / 2, `${outcomes.failed} of ${whole.length + 1} cuts failed`);
  });
}
