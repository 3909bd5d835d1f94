import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Document, getBounds } from '@gltf-transform/core';
import type { Material } from '@gltf-transform/core';
import { decodeTga } from '../../src/pipeline/import/assimp/import-assimp-tga.ts';
import { toMetresYUp } from '../../src/pipeline/import/import-frame.ts';
import type { UpAxis } from '../../src/pipeline/import/import-frame.ts';
import { buildOcctMesh } from '../../src/pipeline/import/occt/import-occt-mesh.ts';

/** A TGA file: 18-byte header, then `body` (colour map and pixels). */
function tga(
  header: Partial<Record<'type' | 'mapType' | 'mapLength' | 'mapDepth' | 'depth' | 'descriptor', number>>,
  width: number,
  height: number,
  body: number[],
): Uint8Array {
  const bytes = new Uint8Array(18 + body.length);
  bytes[1] = header.mapType ?? 0;
  bytes[2] = header.type ?? 2;
  bytes[5] = header.mapLength ?? 0;
  bytes[7] = header.mapDepth ?? 0;
  bytes[12] = width;
  bytes[14] = height;
  bytes[16] = header.depth ?? 24;
  bytes[17] = header.descriptor ?? 0;
  bytes.set(body, 18);
  return bytes;
}

void test('TGA: true-colour rows stored bottom-up come out top row first, BGR as RGB', () => {
  // 2×2, bottom row first: bottom = red, green; top = blue, white.
  const image = decodeTga(tga({}, 2, 2, [0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255]));
  assert.deepEqual([...image.data], [0, 0, 255, 255, 255, 255, 255, 255, 255, 0, 0, 255, 0, 255, 0, 255]);
});

void test('TGA: run-length encoded 32-bit pixels, top-down, keep their alpha', () => {
  // A run of 3 half-transparent reds, then 1 raw opaque blue.
  const image = decodeTga(
    tga({ type: 10, depth: 32, descriptor: 0x28 }, 2, 2, [0x82, 0, 0, 255, 128, 0x00, 255, 0, 0, 255]),
  );
  assert.deepEqual([...image.data], [255, 0, 0, 128, 255, 0, 0, 128, 255, 0, 0, 128, 0, 0, 255, 255]);
});

void test('TGA: colour-mapped and grey images, and truncated files are refused', () => {
  const mapped = decodeTga(
    tga(
      { type: 1, mapType: 1, mapLength: 2, mapDepth: 24, depth: 8, descriptor: 0x20 },
      2,
      1,
      [0, 255, 0, 10, 20, 30, 1, 0],
    ),
  );
  assert.deepEqual([...mapped.data], [30, 20, 10, 255, 0, 255, 0, 255]);
  const grey = decodeTga(tga({ type: 3, depth: 8, descriptor: 0x20 }, 2, 1, [7, 200]));
  assert.deepEqual([...grey.data], [7, 7, 7, 255, 200, 200, 200, 255]);
  assert.throws(() => decodeTga(tga({}, 2, 2, [1, 2, 3])), /truncated/);
  assert.throws(() => decodeTga(new Uint8Array(10)), /truncated/);
});

void test('toMetresYUp turns each declared up axis to +Y and scales, without mirroring', () => {
  const cases: [UpAxis, [number, number, number]][] = [
    ['+Z', [0, 0, 2]],
    ['-Z', [0, 0, -2]],
    ['+X', [2, 0, 0]],
    ['-X', [-2, 0, 0]],
    ['-Y', [0, -2, 0]],
  ];
  for (const [axis, up] of cases) {
    const document = new Document();
    const node = document.createNode('top').setTranslation(up).setScale([1, 1, -1]);
    document.createScene().addChild(node);
    toMetresYUp(document, 0.5, axis);
    const world = node.getWorldMatrix();
    const position = [world[12], world[13], world[14]].map((value) => Math.round(value * 1e6) / 1e6 + 0);
    assert.deepEqual(position, [0, 1, 0], axis);
    // The node's own mirror stays, and the correction adds none: determinant sign unchanged.
    const [a, b, c, , d, e, f, , g, h, i] = world;
    const determinant = a * (e * i - f * h) - d * (b * i - c * h) + g * (b * f - c * e);
    assert.ok(determinant < 0 && Math.abs(Math.abs(determinant) - 0.125) < 1e-9, `${axis}: ${determinant}`);
  }
});

void test('an OpenCASCADE shape with two face colours becomes two primitives sharing per-colour materials', () => {
  const document = new Document();
  const buffer = document.createBuffer();
  const materials = new Map<string, Material>();
  const red: [number, number, number] = [1, 0, 0];
  const shape = {
    attributes: {
      position: { array: [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 2, 0, 0] },
      normal: { array: [0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1] },
    },
    index: { array: [0, 1, 2, 0, 2, 3, 1, 4, 2] },
    brep_faces: [
      { first: 0, last: 1, color: red },
      { first: 2, last: 2, color: null },
    ],
  };
  const mesh = buildOcctMesh(document, buffer, materials, [
    shape,
    { ...shape, brep_faces: [{ first: 0, last: 2, color: red }] },
  ]);
  const primitives = mesh.listPrimitives();
  assert.equal(primitives.length, 3);
  assert.equal(materials.size, 2, 'red and the default grey');
  const [first, second, third] = primitives;
  assert.deepEqual(first.getMaterial()!.getBaseColorFactor(), [1, 0, 0, 1]);
  assert.equal(first.getIndices()!.getCount(), 6);
  assert.equal(first.getAttribute('POSITION')!.getCount(), 4, 'only the vertices the red faces use');
  assert.equal(second.getIndices()!.getCount(), 3);
  assert.deepEqual([...second.getIndices()!.getArray()!], [0, 1, 2]);
  const { min, max } = getBounds(
    document
      .createScene()
      .addChild(document.createNode().setMesh(document.createMesh().addPrimitive(second))),
  );
  assert.deepEqual(
    [min, max],
    [
      [1, 0, 0],
      [2, 1, 0],
    ],
  );
  assert.equal(third.getMaterial(), first.getMaterial(), 'one material per colour across shapes');
  assert.equal(third.getAttribute('POSITION')!.getCount(), 5);
});
