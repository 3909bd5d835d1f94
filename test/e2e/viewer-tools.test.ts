// The viewer's pure pieces: the catalog address, section planes, vertex snapping, lengths and animation time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AnimationClip,
  Box3,
  BoxGeometry,
  Mesh,
  NumberKeyframeTrack,
  Object3D,
  PerspectiveCamera,
  Raycaster,
  Vector2,
  Vector3,
} from 'three';
import { catalogHash, emptyQuery, parseCatalogHash } from '../../web/src/pages/catalog-query.ts';
import { formatMetres } from '../../web/src/pages/measure-controls.ts';
import { AnimationPlayer } from '../../web/src/viewer/animation-player.ts';
import { snapToSurface } from '../../web/src/viewer/measure-tool.ts';
import { SectionPlanes } from '../../web/src/viewer/section-planes.ts';

void test('the catalog address round-trips and leaves defaults out', () => {
  assert.equal(catalogHash(emptyQuery()), '#/');
  const query = {
    ...emptyQuery(),
    search: 'a b&c',
    tag: 'Ünï',
    status: 'failed' as const,
    sort: 'name' as const,
    page: 3,
  };
  const hash = catalogHash(query);
  assert.equal(hash, '#/?search=a+b%26c&status=failed&tag=%C3%9Cn%C3%AF&sort=name&page=3');
  assert.deepEqual(parseCatalogHash(hash), query);
  assert.equal(parseCatalogHash('#/'), null);
});

void test('a hand-edited address falls back to defaults value by value', () => {
  assert.deepEqual(parseCatalogHash('#/?status=bogus&sort=size&page=-2&format=stl'), {
    ...emptyQuery(),
    format: 'stl',
  });
  assert.equal(parseCatalogHash('#/?page=2.5')?.page, 1);
});

void test('a section plane keeps what lies below its place on the axis', () => {
  const planes = new SectionPlanes();
  planes.setBounds(new Box3(new Vector3(-1, 0, 10), new Vector3(3, 2, 20)));
  planes.set('x', 0.25);
  planes.set('z', 0.5);
  const [x, z] = planes.active();
  assert.equal(x.distanceToPoint(new Vector3(-0.5, 1, 15)) > 0, true, 'x = -0.5 is kept');
  assert.equal(x.distanceToPoint(new Vector3(0.5, 1, 15)) < 0, true, 'x = 0.5 is cut');
  assert.equal(z.distanceToPoint(new Vector3(0, 1, 14.9)) > 0, true);
  assert.equal(z.distanceToPoint(new Vector3(0, 1, 15.1)) < 0, true);
  planes.set('x', null);
  assert.equal(planes.active().length, 1);
  planes.set('y', 7);
  assert.equal(planes.active()[1].constant, 2, 'fractions are clamped to the extent');
});

void test('a click near a corner snaps to it; one in the middle of a face stays on the surface', () => {
  const camera = new PerspectiveCamera(45, 1, 0.01, 100);
  camera.position.set(0, 0, 5);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  const size = 400;
  const cube = new Mesh(new BoxGeometry(2, 2, 2));
  cube.position.set(0.5, 0, 0);
  cube.updateMatrixWorld();
  const toScreen = (world: Vector3) => {
    const ndc = world.clone().project(camera);
    return { x: ((ndc.x + 1) / 2) * size, y: ((1 - ndc.y) / 2) * size };
  };
  const hitAt = (pixel: { x: number; y: number }) => {
    const raycaster = new Raycaster();
    raycaster.setFromCamera(new Vector2((pixel.x / size) * 2 - 1, 1 - (pixel.y / size) * 2), camera);
    return raycaster.intersectObject(cube)[0];
  };
  const depth = 4;
  const worldPerPixel = (2 * depth * Math.tan(Math.PI / 8)) / size;
  const corner = toScreen(new Vector3(1.5, 1, 1));
  const near = { x: corner.x - 4, y: corner.y + 3 };
  const snapped = snapToSurface(hitAt(near), near, toScreen, worldPerPixel);
  assert.equal(snapped.vertex, true);
  assert.deepEqual(snapped.position.toArray(), [1.5, 1, 1]);
  const middle = toScreen(new Vector3(0.5, 0, 1));
  const plain = snapToSurface(hitAt(middle), middle, toScreen, worldPerPixel);
  assert.equal(plain.vertex, false);
  assert.ok(Math.abs(plain.position.z - 1) < 1e-9, 'on the front face');
});

void test('lengths read in metres, with millimetres below one metre', () => {
  assert.equal(formatMetres(2.5), '2.5 m');
  assert.equal(formatMetres(292.1432), '292.143 m');
  assert.equal(formatMetres(0.0125), '0.0125 m (12.50 mm)');
});

void test('the animation player poses the scene at the time it is scrubbed to and only moves while playing', () => {
  const root = new Object3D();
  const target = new Object3D();
  target.name = 'spinner';
  root.add(target);
  const clip = new AnimationClip('turn', 2, [
    new NumberKeyframeTrack('spinner.position[x]', [0, 2], [0, 10]),
  ]);
  const player = new AnimationPlayer(root, [clip]);
  assert.deepEqual(player.list(), [{ name: 'turn', duration: 2 }]);
  player.seek(1);
  assert.ok(Math.abs(target.position.x - 5) < 1e-6);
  player.advance(0.5);
  assert.ok(Math.abs(target.position.x - 5) < 1e-6, 'paused: time stands still');
  player.setPlaying(true);
  player.advance(0.5);
  assert.ok(Math.abs(player.time - 1.5) < 1e-6);
  assert.ok(Math.abs(target.position.x - 7.5) < 1e-6);
  player.dispose();
});
