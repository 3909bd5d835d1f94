// The pure pieces behind annotations and saved views: section planes to and from their saved form, where a pin
// falls on the screen, which way a clicked face looks, and the query of a view's link.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  Box3,
  BoxGeometry,
  DoubleSide,
  Mesh,
  MeshBasicMaterial,
  PerspectiveCamera,
  Raycaster,
  Vector3,
} from 'three';
import { outwardNormal } from '../../web/src/pages/annotate-mode.ts';
import { pinLabel } from '../../web/src/pages/annotations-list.ts';
import { screenPoint } from '../../web/src/viewer/pin-overlay.ts';
import { axisOfNormal, sectionFraction, SectionPlanes } from '../../web/src/viewer/section-planes.ts';

void test('a section plane saved as normal and constant comes back at the same place', () => {
  const bounds = new Box3(new Vector3(-1, 0, 10), new Vector3(3, 2, 20));
  const planes = new SectionPlanes();
  planes.setBounds(bounds);
  planes.set('x', 0.3);
  planes.set('z', 0.85);
  for (const plane of planes.active()) {
    const axis = axisOfNormal(plane.normal.toArray());
    assert.ok(axis, `the normal ${plane.normal.toArray().join(',')} is along an axis`);
    const again = new SectionPlanes();
    again.setBounds(bounds);
    again.set(axis, sectionFraction(bounds, axis, plane.constant));
    assert.ok(Math.abs(again.active()[0].constant - plane.constant) < 1e-9, `${axis} restored exactly`);
  }
  assert.equal(axisOfNormal([0, -1, 0]), 'y');
  assert.equal(axisOfNormal([1, 0, 0]), null, 'a plane keeping what lies above is not one the tool makes');
  assert.equal(axisOfNormal([0, -0.6, -0.8]), null, 'nor is a slanted one');
  assert.equal(sectionFraction(bounds, 'x', 1000), 1, 'a cut beyond the model is clamped to its end');
});

void test('a plane along no axis cuts as saved, beside the axis planes, its normal scaled to unit length', () => {
  const planes = new SectionPlanes();
  planes.setBounds(new Box3(new Vector3(0, 0, 0), new Vector3(10, 10, 10)));
  planes.set('x', 0.5);
  planes.setFree([{ normal: [0, -3, -4], constant: 25 }]);
  assert.equal(planes.freeCount, 1);
  const [, slanted] = planes.active();
  assert.ok(Math.abs(slanted.normal.length() - 1) < 1e-12);
  assert.ok(Math.abs(slanted.constant - 5) < 1e-12, 'the constant is scaled with the normal');
  // Kept where -0.6y - 0.8z + 5 >= 0.
  assert.ok(slanted.distanceToPoint(new Vector3(0, 0, 0)) > 0);
  assert.ok(slanted.distanceToPoint(new Vector3(0, 5, 5)) < 0);
  planes.setFree([{ normal: [0, 0, 0], constant: 1 }]);
  assert.equal(planes.freeCount, 0, 'a plane with no normal cuts nothing');
  assert.equal(planes.active().length, 1);
});

void test('a pin falls where its point projects, and nowhere when behind the camera or off the view', () => {
  const camera = new PerspectiveCamera(90, 2, 0.1, 100);
  camera.position.set(0, 0, 5);
  camera.lookAt(0, 0, 0);
  camera.updateMatrixWorld();
  assert.deepEqual(screenPoint(new Vector3(0, 0, 0), camera, 800, 400), { x: 400, y: 200 });
  const right = screenPoint(new Vector3(5, 0, 0), camera, 800, 400);
  assert.ok(right && Math.abs(right.x - 600) < 1e-6 && Math.abs(right.y - 200) < 1e-6, JSON.stringify(right));
  assert.equal(screenPoint(new Vector3(0, 0, 10), camera, 800, 400), null, 'behind the camera');
  assert.equal(screenPoint(new Vector3(50, 0, 0), camera, 800, 400), null, 'off to the side');
});

void test('a clicked face gives its normal in the scene frame, turned towards the camera', () => {
  const cube = new Mesh(new BoxGeometry(2, 2, 2), new MeshBasicMaterial({ side: DoubleSide }));
  cube.rotation.y = Math.PI / 2;
  cube.position.set(3, 0, 0);
  cube.updateMatrixWorld();
  const raycaster = new Raycaster(new Vector3(3, 0, 10), new Vector3(0, 0, -1));
  const [hit] = raycaster.intersectObject(cube);
  const normal = outwardNormal(hit, new Vector3(0, 0, -1));
  assert.ok(
    normal.distanceTo(new Vector3(0, 0, 1)) < 1e-9,
    `front face looks at the camera: ${normal.toArray()}`,
  );
  // A back face hit (a double-sided mesh seen from inside) is turned to face the camera too.
  const inside = new Raycaster(new Vector3(3, 0, 0), new Vector3(0, 0, -1));
  const [backHit] = inside.intersectObject(cube);
  assert.ok(backHit, 'the far face is hit from inside');
  assert.ok(Math.abs(backHit.point.z + 1) < 1e-9);
  const turned = outwardNormal(backHit, new Vector3(0, 0, -1));
  assert.ok(turned.distanceTo(new Vector3(0, 0, 1)) < 1e-9, `turned: ${turned.toArray()}`);
});

void test('pins and list rows are numbered from 1', () => {
  assert.deepEqual([0, 1, 9].map(pinLabel), ['1', '2', '10']);
});
