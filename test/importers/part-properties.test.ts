// What each importer reads as part properties from the sample models: OBJ groups with their materials, COLLADA ids
// and names, STEP products (the importer's own IFC reading is tested against web-ifc in test/catalog).
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { importOcct } from '../../src/pipeline/import/occt/import-occt.ts';
import {
  readStepProducts,
  stepPartName,
  stepProductMatcher,
} from '../../src/pipeline/import/occt/step-products.ts';
import { tempDir } from '../pipeline/documents.ts';
import { MODELS, readSample, recordingContext } from './support.ts';

const partsOf = async (file: string) => {
  const { document } = await readSample(file);
  return extractParts(document, { modelId: 'm' }, recordingContext());
};

void test('OBJ parts carry their group name and the materials their faces use', async () => {
  const parts = await partsOf('obj/spider/spider.obj');
  const body = parts.find((part) => part.name === 'HLeib01');
  assert.deepEqual(body?.properties, { OBJ: { Group: 'HLeib01', Materials: 'HLeibTex' } });
  for (const part of parts) assert.equal(part.properties.OBJ?.Group, part.name);
});

void test('COLLADA parts keep the geometry id assimp named them by and the name the author gave', async () => {
  const parts = await partsOf('dae/franka_fer_link0.dae');
  assert.deepEqual(parts[0]!.properties, {
    COLLADA: { GeometryId: 'Part__Feature017_001-mesh', Geometry: 'Part__Feature017.001' },
  });
});

void test('STEP parts are named after their products and carry their id, name and description', async () => {
  const parts = await partsOf('step/red_cube_blue_cylinder.step');
  assert.deepEqual(
    parts.map((part) => [part.name, part.properties]),
    [
      [
        'blue_cylinder',
        { Product: { Id: 'blue_cylinder', Name: 'blue_cylinder', Description: 'PART-blue_cylinder-DESC' } },
      ],
      ['red_cube', { Product: { Id: 'red_cube', Name: 'red_cube', Description: 'PART-red_cube-DESC' } }],
    ],
  );
});

void test('STEP products that share a name each give their own part their id and description', async () => {
  // The cube and cylinder sample with both products renamed `Bracket`: only their ids and descriptions differ.
  const text = (await readFile(path.join(MODELS, 'step/red_cube_blue_cylinder.step'), 'latin1'))
    .replace(
      "PRODUCT( 'blue_cylinder', 'blue_cylinder', 'PART-blue_cylinder-DESC'",
      "PRODUCT( 'BR-1', 'Bracket', 'round'",
    )
    .replace("PRODUCT( 'red_cube', 'red_cube', 'PART-red_cube-DESC'", "PRODUCT( 'BR-2', 'Bracket', 'square'");
  assert.equal(
    readStepProducts(new TextEncoder().encode(text)).filter((p) => p.name === 'Bracket').length,
    2,
  );
  const scratch = await tempDir();
  try {
    const file = path.join(scratch.dir, 'brackets.step');
    await writeFile(file, text, 'latin1');
    const { document } = await importOcct.read(
      { file, dir: scratch.dir, format: 'step' },
      recordingContext(),
    );
    const parts = extractParts(document, { modelId: 'm' }, recordingContext());
    assert.deepEqual(
      parts.map((part) => part.properties),
      [
        { Product: { Id: 'BR-1', Name: 'Bracket', Description: 'round' } },
        { Product: { Id: 'BR-2', Name: 'Bracket', Description: 'square' } },
      ],
    );
  } finally {
    await scratch.remove();
  }
});

void test('a STEP product met again with the same geometry is the same product, as its instances are', () => {
  const products = ['A', 'B', 'C'].map((id) => ({ id, name: 'Bolt', description: '' }));
  const productOf = stepProductMatcher(products);
  assert.equal(productOf('Bolt', '24/36')?.id, 'A');
  assert.equal(productOf('Bolt', '24/36')?.id, 'A');
  assert.equal(productOf('Bolt', '48/60')?.id, 'B');
  assert.equal(productOf('Bolt', '24/36')?.id, 'A');
  assert.equal(productOf('Bolt', '96/90')?.id, 'C');
  assert.equal(productOf('Bolt', '1/1')?.id, 'C', 'a shape beyond the products of the name takes the last');
  assert.equal(productOf('Nut', '24/36'), undefined);
});

void test("FBX parts carry their node's properties, user properties included, as assimp passes them on", async () => {
  const parts = await partsOf('fbx/cubes_with_names.fbx');
  assert.ok(parts.length > 0);
  for (const part of parts) {
    assert.equal(part.properties.FBX?.currentUVSet, 'map1', part.name);
    assert.equal(part.properties.FBX?.IsNull, false, part.name);
  }
});

void test("a STEP part OpenCASCADE would name after its translator takes its product's id", () => {
  const text = [
    "#1 = PRODUCT('Open CASCADE STEP translator 7.5 1','Open CASCADE STEP translator 7.5 1','',(#9));",
    "#2 = PRODUCT( 'BRACKET-01', 'Open CASCADE STEP translator 7.5 2', $, (#9));",
    "#3 = PRODUCT('it''s','Bolt M8','hex head',(#9));",
  ].join('\n');
  const products = readStepProducts(new TextEncoder().encode(text));
  assert.deepEqual(products, [
    { id: 'Open CASCADE STEP translator 7.5 1', name: 'Open CASCADE STEP translator 7.5 1', description: '' },
    { id: 'BRACKET-01', name: 'Open CASCADE STEP translator 7.5 2', description: '' },
    { id: "it's", name: 'Bolt M8', description: 'hex head' },
  ]);
  assert.equal(stepPartName(products[1]!.name, products[1], 'part 2'), 'BRACKET-01');
  assert.equal(stepPartName(products[0]!.name, products[0], 'part 1'), 'part 1');
  assert.equal(stepPartName('Bolt M8', products[2], 'part 3'), 'Bolt M8');
  assert.equal(stepPartName('', undefined, 'assembly 1'), 'assembly 1');
});
