import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { getBounds } from '@gltf-transform/core';
import { createOcctImporter, importOcct } from '../../src/pipeline/import/occt/import-occt.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import {
  MODELS,
  SAMPLES,
  errorsOf,
  importSample,
  recordingContext,
  triangleCount,
  validate,
} from './support.ts';

void test('the registry hands step, stp, iges and igs to importOcct', () => {
  for (const format of ['step', 'stp', 'iges', 'igs'] as const) assert.equal(importerFor(format), importOcct);
});

for (const sample of SAMPLES.occt) {
  void test(`${sample.file}: valid glTF with every tessellated triangle, metres, +Z recorded`, async () => {
    const result = await importSample(sample.file);
    assert.ok(result.sourceTriangleCount! > 0);
    assert.equal(triangleCount(result.document), result.sourceTriangleCount);
    assert.equal(result.sourceUpAxis, '+Z');
    assert.deepEqual(errorsOf(await validate(result.document)), []);
  });
}

void test('red_cube_blue_cylinder: two named parts, a red and a blue material, sizes in metres', async () => {
  const { document, sourceUnit } = await importSample('step/red_cube_blue_cylinder.step');
  assert.equal(sourceUnit, 'm');
  const parts = document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh());
  assert.deepEqual(parts.map((node) => node.getName()).sort(), ['blue_cylinder', 'red_cube']);
  assert.equal(parts[0].getParentNode()?.getName(), 'red_cube_blue_cylinder');

  const colorOf = (name: string) => {
    const primitives = parts
      .find((node) => node.getName() === name)!
      .getMesh()!
      .listPrimitives();
    assert.equal(primitives.length, 1);
    return primitives[0].getMaterial()!.getBaseColorFactor();
  };
  const [r1, g1, b1] = colorOf('red_cube');
  assert.ok(r1 > 0.5 && g1 < 0.2 && b1 < 0.1, `red ${[r1, g1, b1].join()}`);
  const [r2, g2, b2] = colorOf('blue_cylinder');
  assert.ok(b2 > 0.3 && r2 < 0.1 && g2 < 0.2, `blue ${[r2, g2, b2].join()}`);
  assert.equal(document.getRoot().listMaterials().length, 2);

  // The file's cube spans 0…0.01 along its Z (up), which is now +Y; its side is 1 cm.
  const cube = getBounds(parts.find((node) => node.getName() === 'red_cube')!);
  const size = cube.max.map((value, axis) => value - cube.min[axis]);
  for (const side of size) assert.ok(Math.abs(side - 0.01) < 1e-6, `side ${side}`);
  assert.ok(Math.abs(cube.min[1]) < 1e-9 && Math.abs(cube.max[1] - 0.01) < 1e-9);
});

void test('millimetre files are recorded as such and scaled to metres', async () => {
  const { document, sourceUnit } = await importSample('step/screw.step');
  assert.equal(sourceUnit, 'mm');
  const { min, max } = getBounds(document.getRoot().listScenes()[0]);
  const longest = Math.max(...max.map((value, axis) => value - min[axis]));
  // A screw a few centimetres long, not tens of metres.
  assert.ok(longest > 0.01 && longest < 0.1, `longest side ${longest}`);
});

void test('a coarser deflection gives fewer triangles of the same part', async () => {
  const { sourceTriangleCount: fine } = await importSample('step/screw.step');
  const file = path.join(MODELS, 'step/screw.step');
  const coarse = await createOcctImporter({ linearDeflection: 0.01, angularDeflection: 1 }).read(
    { file, dir: path.dirname(file), format: 'step' },
    recordingContext(),
  );
  assert.ok(coarse.sourceTriangleCount! > 0);
  assert.ok(coarse.sourceTriangleCount! < fine!, `${coarse.sourceTriangleCount} vs ${fine}`);
  assert.equal(triangleCount(coarse.document), coarse.sourceTriangleCount);
});

void test('reports progress as it builds each shape, between the OpenCASCADE read and the end', async () => {
  const file = path.join(MODELS, 'step/red_cube_blue_cylinder.step');
  const fractions: number[] = [];
  await importOcct.read(
    { file, dir: path.dirname(file), format: 'step' },
    { ...recordingContext(), onProgress: (fraction) => fractions.push(fraction) },
  );
  // One report per shape: the cube's, then the cylinder's, the last at 0.95.
  const building = fractions.filter((fraction) => fraction > 0.8 && fraction < 1);
  assert.equal(building.length, 2, JSON.stringify(fractions));
  assert.ok(Math.abs(building[1]! - 0.95) < 1e-9, String(building[1]));
  assert.deepEqual(
    fractions,
    [...fractions].sort((a, b) => a - b),
  );
});
