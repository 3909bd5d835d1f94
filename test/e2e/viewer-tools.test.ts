// The viewer's pure pieces: the catalog address, section planes, vertex snapping, lengths, animation time, menu
// placement, the bind button's words, point counts and framing an isolated part.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  AnimationClip,
  Box3,
  BoxGeometry,
  BufferGeometry,
  Float32BufferAttribute,
  Group,
  Mesh,
  NumberKeyframeTrack,
  Object3D,
  PerspectiveCamera,
  PlaneGeometry,
  Points,
  Raycaster,
  Vector2,
  Vector3,
} from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { bindingState } from '../../web/src/pages/binding-state.ts';
import { catalogHash, emptyQuery, parseCatalogHash } from '../../web/src/pages/catalog-query.ts';
import { lodDescriber } from '../../web/src/pages/lod-description.ts';
import { formatMetres } from '../../web/src/pages/measure-controls.ts';
import { formatDrawn, formatGeometry } from '../../web/src/ui/format.ts';
import { horizontalShift } from '../../web/src/ui/keep-in-viewport.ts';
import { AnimationPlayer } from '../../web/src/viewer/animation-player.ts';
import { isClosedSurface } from '../../web/src/viewer/closed-surface.ts';
import { frameBox } from '../../web/src/viewer/frame-camera.ts';
import { snapToSurface } from '../../web/src/viewer/measure-tool.ts';
import { countPoints, countTriangles } from '../../web/src/viewer/part-meshes.ts';
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
  const end = planes.active()[1].constant;
  assert.ok(end > 2 && end < 2.01, `fractions are clamped to just beyond the extent (${end})`);
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

void test('a menu running off either edge of the window is slid back inside it', () => {
  // The Export menu as users found it: 240 px wide, hanging from a button near the right edge.
  assert.equal(horizontalShift(1196, 1436, 1280), -164);
  assert.equal(horizontalShift(314, 554, 390), -172);
  assert.equal(horizontalShift(100, 340, 1280), 0, 'a menu inside stays');
  assert.equal(horizontalShift(-50, 190, 390), 58, 'one off the left edge moves right');
  assert.equal(horizontalShift(-10, 500, 390), 18, 'one wider than the window keeps its left edge in');
});

void test('the bind button says what is missing until parts and a material are chosen', () => {
  assert.deepEqual(
    [bindingState(0, null), bindingState(2, null), bindingState(0, 'Red'), bindingState(1, 'Red')].map(
      ({ ready, label }) => [ready, label],
    ),
    [
      [false, 'Bind: select parts, pick a material'],
      [false, 'Bind 2 parts: pick a material'],
      [false, 'Bind to “Red”: select parts'],
      [true, 'Bind selected parts to “Red”'],
    ],
  );
  assert.match(bindingState(2, null).hint, /New material/);
});

void test('a point cloud is counted in points, a mesh in triangles', () => {
  const cloud = new BufferGeometry();
  cloud.setAttribute('position', new Float32BufferAttribute(new Float32Array(3 * 700), 3));
  const root = new Group();
  root.add(new Points(cloud), new Mesh(new BoxGeometry(1, 1, 1)));
  assert.equal(countPoints(root), 700);
  assert.equal(countTriangles(root), 12);
  cloud.setDrawRange(100, 250);
  assert.equal(countPoints(root), 250, 'only the drawn range');
  assert.equal(formatDrawn(0, 70_000), '70,000 points');
  assert.equal(formatDrawn(1234, 0), '1,234 triangles');
  assert.equal(formatDrawn(12, 700), '12 triangles · 700 points');
  assert.equal(formatGeometry({ triangle_count: 0, vertex_count: 70_000 }), '70,000 points');
  assert.equal(formatGeometry({ triangle_count: 12, vertex_count: 24 }), '12 triangles');
  const describe = lodDescriber({ triangle_count: 0, vertex_count: 70_000 });
  const lod = (level: number) => ({
    level,
    url: '',
    triangle_count: 0,
    size: 1,
    error: 0,
    reduced: level > 0,
  });
  assert.deepEqual(
    [0, 1].map((level) => describe(lod(level))),
    ['70,000 points', 'fewer points'],
  );
  assert.equal(lodDescriber({ triangle_count: 12, vertex_count: 24 })(lod(1)), '0 triangles');
});

void test('framing a part keeps the direction the camera looks from and fills the view with it', () => {
  const camera = new PerspectiveCamera(45, 1.6, 0.01, 1000);
  camera.position.set(0, 0, 50);
  // Without an element the controls listen to nothing; only their target and limits are used.
  const controls = new OrbitControls(camera);
  const box = new Box3(new Vector3(9, -1, -1), new Vector3(11, 1, 1));
  frameBox(camera, controls, box, new Vector3(0, 0, 50));
  assert.deepEqual(controls.target.toArray(), [10, 0, 0]);
  assert.ok(Math.abs(camera.position.x - 10) < 1e-9 && camera.position.z > 1, 'still looking along -z');
  camera.updateMatrixWorld();
  // The box's corners land inside the view, and it spans a good share of its height.
  const corners = [box.min, box.max].map((corner) => corner.clone().project(camera));
  for (const corner of corners) assert.ok(Math.abs(corner.x) <= 1 && Math.abs(corner.y) <= 1);
  assert.ok(Math.abs(corners[1].y - corners[0].y) > 0.5, 'the part fills much of the view');
});

void test('only closed surfaces are capped: a box is, a sheet or an open box is not', () => {
  // BoxGeometry splits its vertices per face, as glTF files do at hard edges.
  const box = new BoxGeometry(1, 2, 3);
  assert.equal(isClosedSurface(box), true);
  assert.equal(isClosedSurface(box.toNonIndexed()), true);
  assert.equal(isClosedSurface(new PlaneGeometry(1, 1)), false);
  const lidless = box.clone();
  lidless.setIndex(Array.from(box.index!.array).slice(6));
  assert.equal(isClosedSurface(lidless), false);
});
