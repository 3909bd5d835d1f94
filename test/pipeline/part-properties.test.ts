import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import {
  boundProperties,
  flattenProperties,
  PROPERTIES_EXTRAS_KEY,
  PROPERTY_LIMITS,
  propertiesFromExtras,
} from '../../src/pipeline/part-properties.ts';
import { addRawMesh, emptyDocument, recordingContext } from './documents.ts';

const TRIANGLE = [0, 0, 0, 1, 0, 0, 0, 1, 0];

void test("a glTF node's extras become its part's properties and stay in the file", () => {
  const document = emptyDocument();
  const extras = {
    material_code: 'C30/37',
    fire_rated: true,
    mass: 12.5,
    asset: { vendor: 'ACME', sku: 42, tags: ['a', 'b'] },
    layers: [1, 2],
  };
  const node = document.createNode('Beam').setMesh(addRawMesh(document, TRIANGLE)).setExtras(extras);
  document.getRoot().listScenes()[0]!.addChild(node);
  const [part] = extractParts(document, { modelId: 'm' }, recordingContext());
  assert.deepEqual(part!.properties, {
    Extras: { material_code: 'C30/37', fire_rated: true, mass: 12.5, layers: '[1,2]' },
    asset: { vendor: 'ACME', sku: 42, tags: '["a","b"]' },
  });
  assert.deepEqual(node.getExtras(), { ...extras, group_id: 'm:0' });
});

void test("an importer's properties reach the part and leave every node's extras, mesh or not", () => {
  const document = emptyDocument();
  const given = { Pset_WallCommon: { IsExternal: true }, Qto: { Length: { value: 5, unit: 'm' } } };
  const storey = document
    .createNode('Storey')
    .setExtras({ [PROPERTIES_EXTRAS_KEY]: { Element: { Class: 'X' } } });
  const wall = document
    .createNode('Wall')
    .setMesh(addRawMesh(document, TRIANGLE))
    .setExtras({ group_id: 'GUID', [PROPERTIES_EXTRAS_KEY]: given });
  storey.addChild(wall);
  document.getRoot().listScenes()[0]!.addChild(storey);
  const [part] = extractParts(document, { modelId: 'm' }, recordingContext());
  assert.deepEqual(part!.properties, given);
  assert.deepEqual(wall.getExtras(), { group_id: 'GUID' });
  assert.deepEqual(storey.getExtras(), {});
});

void test('caps names, texts and counts, and drops control characters and values that are not scalars', () => {
  const long = 'x'.repeat(5_000);
  const { properties, count, dropped } = boundProperties({
    ['S'.repeat(300)]: { [`a\u0000b`]: `v\u0007${long}`, n: Number.NaN, ok: 1, '': 'no name' },
  });
  const [setName] = Object.keys(properties);
  assert.equal(setName!.length, PROPERTY_LIMITS.nameLength);
  assert.ok(setName!.endsWith('…'));
  const set = properties[setName!]!;
  assert.deepEqual(Object.keys(set), ['ab', 'ok']);
  assert.equal((set.ab as string).length, PROPERTY_LIMITS.valueLength);
  assert.ok((set.ab as string).startsWith('vxx'));
  assert.equal(count, 2);
  assert.equal(dropped, 0);

  const many = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`p${i}`, i]));
  const capped = boundProperties({ Big: many });
  assert.equal(capped.count, PROPERTY_LIMITS.perPart);
  assert.equal(capped.dropped, 600 - PROPERTY_LIMITS.perPart);
  assert.equal(boundProperties({ Big: many }, 10).count, 10);
});

void test('a model past its property cap keeps the first parts whole and warns', () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const perPart = Object.fromEntries(Array.from({ length: PROPERTY_LIMITS.perPart }, (_, i) => [`p${i}`, i]));
  const parts = PROPERTY_LIMITS.perModel / PROPERTY_LIMITS.perPart + 1;
  const mesh = addRawMesh(document, TRIANGLE);
  for (let i = 0; i < parts; i++)
    scene.addChild(document.createNode(`n${i}`).setMesh(mesh).setExtras({ S: perPart }));
  const context = recordingContext();
  const listed = extractParts(document, { modelId: 'm' }, context);
  assert.equal(Object.keys(listed[parts - 2]!.properties.S!).length, PROPERTY_LIMITS.perPart);
  assert.deepEqual(listed[parts - 1]!.properties, {});
  assert.match(context.warnings.join('\n'), /500 properties dropped past the caps/);
});

void test('flattens to typed rows a where= condition compares with', () => {
  assert.deepEqual(flattenProperties({ P: { b: false, n: 2.5, s: 'x', u: { value: 3, unit: 'm' } } }), [
    { set_name: 'P', property_name: 'b', value_type: 'boolean', value: 'false' },
    { set_name: 'P', property_name: 'n', value_type: 'number', value: '2.5' },
    { set_name: 'P', property_name: 's', value_type: 'string', value: 'x' },
    { set_name: 'P', property_name: 'u', value_type: 'number', value: '3' },
  ]);
  assert.deepEqual(propertiesFromExtras({ group_id: 'g', ifc_type: 'IfcWall' }), {});
});
