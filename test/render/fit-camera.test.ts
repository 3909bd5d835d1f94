import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_VIEW, FRAME_MARGIN, frameCamera, viewProjection } from '../../src/render/camera.ts';
import type { FramedCamera, ViewAngles } from '../../src/render/camera.ts';
import { fitCamera } from '../../src/render/fit-camera.ts';
import type { FramedVertices } from '../../src/render/fit-camera.ts';
import type { Bounds } from '../../src/pipeline/types.ts';

const EDGE = 1 / FRAME_MARGIN;

/** Every vertex used, as one primitive. */
function vertices(points: number[][]): FramedVertices {
  return { positions: new Float32Array(points.flat()), used: new Uint8Array(points.length).fill(1) };
}

function boundsOf(points: number[][]): Bounds {
  const min: [number, number, number] = [Infinity, Infinity, Infinity];
  const max: [number, number, number] = [-Infinity, -Infinity, -Infinity];
  for (const point of points)
    point.forEach((v, i) => {
      min[i] = Math.min(min[i], v);
      max[i] = Math.max(max[i], v);
    });
  return { min, max };
}

/** Normalized device coordinates of each point. */
function project(camera: FramedCamera, aspect: number, points: number[][]): number[][] {
  const m = viewProjection(camera, aspect);
  return points.map(([x, y, z]) => {
    const w = m[3] * x + m[7] * y + m[11] * z + m[15];
    return [0, 1, 2].map((r) => (m[r] * x + m[4 + r] * y + m[8 + r] * z + m[12 + r]) / w);
  });
}

/** A house: a wide, thin base plate with a narrower block and a ridge on it, as FZK-Haus stands. */
const HOUSE: number[][] = [];
for (const x of [-10, 10]) for (const z of [-8, 8]) HOUSE.push([x, 0, z], [x, 0.5, z]);
for (const x of [-5, 5]) for (const z of [-4, 4]) HOUSE.push([x, 3, z]);
HOUSE.push([-5, 6, 0], [5, 6, 0]);

/** 200 points in a lopsided cloud, from a fixed seed. */
function cloud(): number[][] {
  let seed = 7;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
  return Array.from({ length: 200 }, () => [random() * 3 + 5, random() * 0.5, random() ** 3 * 4 - 2]);
}

const VIEWS: ViewAngles[] = [
  DEFAULT_VIEW,
  { azimuth: -120, elevation: -45 },
  { azimuth: 200, elevation: 12 },
  { azimuth: 10, elevation: 90 },
];

void describe('fitCamera', () => {
  void it('holds every vertex within the head-room and touches it on both sides of one axis', () => {
    for (const points of [HOUSE, cloud()]) {
      for (const aspect of [1, 2, 0.5]) {
        for (const view of VIEWS) {
          const camera = fitCamera([vertices(points)], boundsOf(points), aspect, view);
          const projected = project(camera, aspect, points);
          for (const [x, y, z] of projected) {
            assert.ok(Math.abs(x) <= EDGE + 1e-6 && Math.abs(y) <= EDGE + 1e-6, `at ${x}, ${y}`);
            assert.ok(z > -1 && z < 1, `depth ${z}`);
          }
          const reach = (axis: number) => [
            Math.min(...projected.map((p) => p[axis])),
            Math.max(...projected.map((p) => p[axis])),
          ];
          const touches = (axis: number) => reach(axis).every((v) => Math.abs(Math.abs(v) - EDGE) < 1e-4);
          assert.ok(touches(0) || touches(1), `reaches x ${reach(0)}, y ${reach(1)}`);
        }
      }
    }
  });

  void it('draws a house bigger, and nearer the middle, than the frame of its bounding sphere does', () => {
    const bounds = boundsOf(HOUSE);
    const extent = (camera: FramedCamera) => {
      const projected = project(camera, 1, HOUSE);
      const [xs, ys] = [0, 1].map((axis) => projected.map((p) => p[axis]));
      const height = Math.max(...ys) - Math.min(...ys);
      const area = (Math.max(...xs) - Math.min(...xs)) * height;
      return { area, middle: (Math.max(...ys) + Math.min(...ys)) / 2 };
    };
    const fitted = extent(fitCamera([vertices(HOUSE)], bounds, 1));
    const sphere = extent(frameCamera(bounds, 1));
    // The sphere's frame centres the box, whose top corners no wall reaches: the house sits low (−0.24).
    assert.ok(fitted.area > 1.1 * sphere.area, `area ${fitted.area} against ${sphere.area}`);
    assert.ok(Math.abs(fitted.middle) < 0.1 && sphere.middle < -0.2, `${fitted.middle}, ${sphere.middle}`);
  });

  void it('leaves out vertices no triangle uses and vertices that are not finite', () => {
    const bounds = boundsOf(HOUSE);
    const plain = fitCamera([vertices(HOUSE)], bounds, 1);
    const stray = vertices([...HOUSE, [500, 500, 500], [NaN, 0, 0], [0, Infinity, 0]]);
    stray.used[HOUSE.length] = 0;
    assert.deepEqual(fitCamera([stray], bounds, 1), plain);
  });

  void it('frames a scene with no extent as its bounds', () => {
    const point = { min: [1, 2, 3], max: [1, 2, 3] } satisfies Bounds as Bounds;
    assert.deepEqual(fitCamera([vertices([[1, 2, 3]])], point, 1), frameCamera(point, 1));
    // A segment along the line of sight has no width or height in the image.
    const view = { azimuth: 0, elevation: 0 };
    const line = { min: [0, 0, -1], max: [0, 0, 1] } satisfies Bounds as Bounds;
    const along = fitCamera(
      [
        vertices([
          [0, 0, -1],
          [0, 0, 1],
        ]),
      ],
      line,
      1,
      view,
    );
    assert.deepEqual(along, frameCamera(line, 1, view));
    assert.deepEqual(fitCamera([], line, 1), frameCamera(line, 1));
  });
});
