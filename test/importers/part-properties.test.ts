// What each importer reads as part properties from the sample models: OBJ groups with their materials, COLLADA ids
// and names, STEP products (the importer's own IFC reading is tested against web-ifc in test/catalog).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { readSample, recordingContext } from './support.ts';

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

void test("FBX parts carry their node's properties, user properties included, as assimp passes them on", async () => {
  const parts = await partsOf('fbx/cubes_with_names.fbx');
  assert.ok(parts.length > 0);
  for (const part of parts) {
    assert.equal(part.properties.FBX?.currentUVSet, 'map1', part.name);
    assert.equal(part.properties.FBX?.IsNull, false, part.name);
  }
});
