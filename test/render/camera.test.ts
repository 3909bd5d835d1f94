import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Matrix4, PerspectiveCamera } from 'three';
import { DEFAULT_VIEW, frameCamera, viewProjection } from '../../src/render/camera.ts';
import type { Bounds } from '../../src/pipeline/types.ts';

const BOXES: Bounds[] = [
  { min: [-1, -1, -1], max: [1, 1, 1] },
  { min: [10, 0, -3], max: [14, 0.5, 5] },
  { min: [-0.01, -0.2, 0], max: [0.01, 0.2, 0] },
];

function project(m: Float64Array, [x, y, z]: number[]): number[] {
  const w = m[3] * x + m[7] * y + m[11] * z + m[15];
  return [
    (m[0] * x + m[4] * y + m[8] * z + m[12]) / w,
    (m[1] * x + m[5] * y + m[9] * z + m[13]) / w,
    (m[2] * x + m[6] * y + m[10] * z + m[14]) / w,
  ];
}

function corners({ min, max }: Bounds): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < 8; i++)
    out.push([i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]]);
  return out;
}

void describe('frameCamera', () => {
  void it('looks at the box centre from the three-quarter view: front-right, 30° above', () => {
    const camera = frameCamera(BOXES[1], 1);
    assert.deepEqual(camera.target, [12, 0.25, 1]);
    const d = camera.eye.map((e, i) => e - camera.target[i]);
    const len = Math.hypot(...d);
    const expected = [Math.cos(Math.PI / 6) * Math.SQRT1_2, 0.5, Math.cos(Math.PI / 6) * Math.SQRT1_2];
    d.forEach((v, i) => assert.ok(Math.abs(v / len - expected[i]) < 1e-9));
    assert.deepEqual(DEFAULT_VIEW, { azimuth: 45, elevation: 30 });
  });

  void it('keeps every corner of the box inside the image and between near and far, at any aspect', () => {
    for (const bounds of BOXES) {
      for (const aspect of [1, 2, 0.5]) {
        for (const view of [
          DEFAULT_VIEW,
          { azimuth: -120, elevation: -45 },
          { azimuth: 10, elevation: 90 },
        ]) {
          const camera = frameCamera(bounds, aspect, view);
          const m = viewProjection(camera, aspect);
          let reach = 0;
          for (const corner of corners(bounds)) {
            const [x, y, z] = project(m, corner);
            assert.ok(Math.abs(x) < 1 && Math.abs(y) < 1, `corner at ${x}, ${y}`);
            assert.ok(z > -1 && z < 1, `depth ${z}`);
            reach = Math.max(reach, Math.abs(x), Math.abs(y));
          }
          // Framed on the bounding sphere: a cube fills a good part of the frame from any side.
          if (bounds === BOXES[0]) assert.ok(reach > 0.45, `reaches only ${reach}`);
        }
      }
    }
  });

  void it('builds the same view-projection matrix as three.js', () => {
    const aspect = 1.5;
    const camera = frameCamera(BOXES[1], aspect, { azimuth: 200, elevation: 12 });
    const three = new PerspectiveCamera(camera.fovY, aspect, camera.near, camera.far);
    three.position.set(...camera.eye);
    three.up.set(...camera.up);
    three.lookAt(...camera.target);
    three.updateMatrixWorld();
    const expected = new Matrix4().multiplyMatrices(three.projectionMatrix, three.matrixWorldInverse);
    const ours = viewProjection(camera, aspect);
    expected.elements.forEach((v, i) =>
      assert.ok(Math.abs(v - ours[i]) < 1e-9, `element ${i}: ${ours[i]} vs ${v}`),
    );
  });

  void it('stays finite for a single point and for a view straight down', () => {
    const point = frameCamera({ min: [1, 2, 3], max: [1, 2, 3] }, 1);
    const down = frameCamera(BOXES[0], 1, { azimuth: 0, elevation: 90 });
    for (const camera of [point, down]) {
      for (const v of [...camera.eye, ...camera.up, camera.near, camera.far]) assert.ok(Number.isFinite(v));
      assert.ok(camera.near > 0 && camera.far > camera.near);
      for (const v of viewProjection(camera, 1)) assert.ok(Number.isFinite(v));
    }
  });
});
