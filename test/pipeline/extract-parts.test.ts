import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { addRawMesh, addSphere, emptyDocument, recordingContext } from './documents.ts';

/** Building ▸ Wall (mesh) ▸ Window (mesh); Building ▸ (unnamed, mesh "RoofMesh"); an unnamed node with an unnamed mesh. */
function building() {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const triangle = addRawMesh(document, [0, 0, 0, 1, 0, 0, 0, 1, 0], undefined, undefined, '');
  const root = document.createNode('Building');
  const wall = document
    .createNode('Wall')
    .setMesh(addSphere(document, 8, 4))
    .setExtras({ note: 'kept' });
  const window = document.createNode('Window').setMesh(triangle).setTranslation([0, 0, 3]);
  const roof = document
    .createNode('')
    .setMesh(addSphere(document, 4, 3, 1, 'RoofMesh'))
    .setExtras({ group_id: 'ifc-GUID-1' });
  const loose = document.createNode('').setMesh(triangle);
  wall.addChild(window);
  root.addChild(wall).addChild(roof);
  scene.addChild(root).addChild(loose);
  return { document, wall, window, roof, loose };
}

void test('lists mesh nodes depth-first, a mesh node with children included', () => {
  const { document } = building();
  const parts = extractParts(document, { modelId: 'm1' }, recordingContext());
  assert.deepEqual(
    parts.map((part) => [part.group_id, part.name, part.path]),
    [
      ['m1:0', 'Wall', 'Building'],
      ['m1:1', 'Window', 'Building/Wall'],
      ['ifc-GUID-1', 'RoofMesh', 'Building'],
      ['m1:3', 'Part 4', ''],
    ],
  );
});

void test('writes group_id into every part node, keeping its other extras', () => {
  const { document, wall, window, roof, loose } = building();
  extractParts(document, { modelId: 'm1' }, recordingContext());
  assert.deepEqual(wall.getExtras(), { note: 'kept', group_id: 'm1:0' });
  assert.equal(window.getExtras().group_id, 'm1:1');
  assert.equal(roof.getExtras().group_id, 'ifc-GUID-1');
  assert.equal(loose.getExtras().group_id, 'm1:3');
  assert.equal(document.getRoot().listNodes()[0].getExtras().group_id, undefined, 'a group node is no part');
});

void test('gives each part its own counts and world bounds', () => {
  const { document } = building();
  const [wall, window, roof] = extractParts(document, { modelId: 'm1' }, recordingContext());
  assert.equal(wall.triangle_count, 2 * 8 * 3);
  assert.equal(wall.vertex_count, 9 * 5);
  assert.equal(roof.triangle_count, 2 * 4 * 2);
  assert.equal(window.triangle_count, 1);
  assert.equal(window.vertex_count, 3);
  assert.deepEqual(window.bounds, { min: [0, 0, 3], max: [1, 1, 3] });
});

void test('makes duplicate group ids unique and warns', () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  const mesh = addSphere(document, 4, 3);
  for (const name of ['A', 'B', 'C'])
    scene.addChild(document.createNode(name).setMesh(mesh).setExtras({ group_id: 'same' }));
  const context = recordingContext();
  const parts = extractParts(document, { modelId: 'm' }, context);
  assert.deepEqual(
    parts.map((part) => part.group_id),
    ['same', 'same~2', 'same~3'],
  );
  assert.equal(
    new Set(
      document
        .getRoot()
        .listNodes()
        .map((node) => node.getExtras().group_id),
    ).size,
    3,
  );
  assert.equal(context.warnings.length, 2);
  assert.match(context.warnings[0], /^extract-parts: duplicate group_id "same"/);
});

void test('ignores a group_id that is not a non-empty string', () => {
  const document = emptyDocument();
  const mesh = addSphere(document, 4, 3);
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('N').setMesh(mesh).setExtras({ group_id: 42 }));
  const [part] = extractParts(document, { modelId: 'x' }, recordingContext());
  assert.equal(part.group_id, 'x:0');
});
