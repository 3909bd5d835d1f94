// The pure pieces of compare mode: which colour each part of a diff gets, the paint records the view is given,
// the words of the readout, a click looking past see-through parts, and a version's levels in the shape the level
// loader takes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BoxGeometry, Group, Mesh, MeshBasicMaterial, PerspectiveCamera } from 'three';
import type { ModelVersion, VersionDiff } from '../../web/src/api/versions-api.ts';
import { versionLods } from '../../web/src/api/versions-api.ts';
import {
  DIFF_COLORS,
  DIFF_STATES,
  describeState,
  diffHex,
  diffPaint,
  diffStates,
  groupsIn,
} from '../../web/src/viewer/diff-colors.ts';
import { HIGHLIGHT_COLOR } from '../../web/src/viewer/part-styles.ts';
import { servedLevels } from '../../web/src/viewer/served-levels.ts';
import { surfaceAt } from '../../web/src/viewer/surface-hit.ts';

/** A diff of a house whose wall moved, a window gone, a door added and a slab untouched. */
const DIFF: VersionDiff = {
  from: 1,
  to: 2,
  added: [{ group_id: 'door', name: 'Door' }],
  removed: [{ group_id: 'window', name: 'Window' }],
  changed: [{ group_id: 'wall', name: 'Wall', what: ['transform', 'properties'] }],
  unchanged: [
    { group_id: 'slab', name: 'Slab' },
    { group_id: 'roof', name: 'Roof' },
  ],
  counts: { added: 1, removed: 1, changed: 1, unchanged: 2 },
};

void test('every part the diff names gets its state, a changed one with what changed', () => {
  const states = diffStates(DIFF);
  assert.deepEqual(Object.fromEntries([...states].map(([id, entry]) => [id, entry.state])), {
    door: 'added',
    window: 'removed',
    wall: 'changed',
    slab: 'unchanged',
    roof: 'unchanged',
  });
  assert.deepEqual(states.get('wall')?.what, ['transform', 'properties']);
  assert.equal(states.get('window')?.name, 'Window');
  assert.deepEqual([...groupsIn(states, 'unchanged')], ['slab', 'roof']);
  assert.deepEqual([...groupsIn(states, 'removed')], ['window']);
});

void test('the newer version is painted by state: green added, amber changed, dim see-through unchanged', () => {
  const paint = diffPaint(diffStates(DIFF));
  assert.deepEqual([...paint.keys()].sort(), ['door', 'roof', 'slab', 'wall'], 'removed parts get no paint');
  const door = paint.get('door');
  const wall = paint.get('wall');
  const slab = paint.get('slab');
  assert.ok(door && wall && slab);
  assert.ok(door.diffuse_g > door.diffuse_r + 100 && door.diffuse_g > door.diffuse_b + 60, 'added is green');
  assert.ok(wall.diffuse_r > 200 && wall.diffuse_g > 80 && wall.diffuse_b < 60, 'changed is amber');
  assert.equal(door.alpha, 255, 'added is opaque');
  assert.equal(wall.alpha, 255, 'changed is opaque');
  assert.ok(slab.alpha < 128, `unchanged is see-through (${slab.alpha})`);
  const spread =
    Math.max(slab.diffuse_r, slab.diffuse_g, slab.diffuse_b) -
    Math.min(slab.diffuse_r, slab.diffuse_g, slab.diffuse_b);
  assert.ok(spread < 30, 'unchanged is grey');
  assert.equal(paint.get('roof'), slab, 'parts of one state share one record');
  const ids = new Set([door.id, wall.id, slab.id]);
  assert.equal(ids.size, 3, 'each state its own record');
  for (const id of ids) assert.ok(id < -1, `id ${id} meets no stored material nor the lookup default (-1)`);
});

void test('removed parts are red ghosts, and changed is told apart from the selection tint', () => {
  const removed = DIFF_COLORS.removed;
  assert.ok(removed.r > 200 && removed.g < 80 && removed.b < 80, 'red');
  assert.ok(removed.alpha < 160, 'ghosted');
  const highlight = [(HIGHLIGHT_COLOR >> 16) & 255, (HIGHLIGHT_COLOR >> 8) & 255, HIGHLIGHT_COLOR & 255];
  const changed = DIFF_COLORS.changed;
  assert.ok(
    Math.abs(highlight[1] - changed.g) >= 30,
    `changed (${changed.r},${changed.g},${changed.b}) is redder than the selection tint`,
  );
  const hexes = DIFF_STATES.map(diffHex);
  assert.equal(new Set(hexes).size, 4, 'four distinct colours');
  assert.equal(diffHex('added'), '#14aa3c');
});

void test('the readout names what changed', () => {
  const states = diffStates(DIFF);
  const wall = states.get('wall');
  const door = states.get('door');
  assert.ok(wall && door);
  assert.equal(describeState(wall), 'changed: transform, properties');
  assert.equal(describeState(door), 'added');
  assert.equal(describeState({ state: 'changed', name: 'x', what: [] }), 'changed');
});

void test("a version's levels open like the model's: finest first, copies of a level not fetched again", () => {
  const version = {
    lods: [
      { level: 2, url: '/files/v2/lod2.glb', triangle_count: 100, size: 1000 },
      { level: 0, url: '/files/v2/lod0.glb', triangle_count: 400, size: 4000 },
      { level: 1, url: '/files/v2/lod1.glb', triangle_count: 400, size: 4000 },
    ],
  } as ModelVersion;
  const lods = versionLods(version);
  assert.deepEqual(
    lods.map((lod) => lod.level),
    [0, 1, 2],
  );
  assert.ok(lods.every((lod) => lod.error === null && lod.reduced === null));
  assert.deepEqual(
    servedLevels(lods).map((lod) => lod.url),
    ['/files/v2/lod0.glb', '/files/v2/lod2.glb'],
    'LOD 1 repeats LOD 0 and is skipped',
  );
});

void test('a click looks past the parts it is told to, unless nothing lies behind them', () => {
  const part = (name: string, z: number): Mesh => {
    const mesh = new Mesh(new BoxGeometry(1, 1, 1), new MeshBasicMaterial());
    mesh.name = name;
    mesh.position.z = z;
    return mesh;
  };
  const root = new Group().add(part('front', 0), part('behind', -5));
  root.updateMatrixWorld(true);
  const camera = new PerspectiveCamera(45, 1, 0.1, 100);
  camera.position.set(0, 0, 10);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld(true);
  const canvas = { getBoundingClientRect: () => ({ left: 0, top: 0, width: 100, height: 100 }) };
  const centre = { x: 50, y: 50 };
  const at = (past: string[]): string | undefined =>
    surfaceAt(
      canvas as HTMLCanvasElement,
      camera,
      root,
      centre,
      () => true,
      (entry) => past.includes(entry.object.name),
    )?.object.name;
  assert.equal(at([]), 'front');
  assert.equal(at(['front']), 'behind', 'the part behind a looked-past one is hit');
  assert.equal(at(['front', 'behind']), 'front', 'with only looked-past parts, the nearest');
  assert.equal(at(['behind']), 'front');
});
