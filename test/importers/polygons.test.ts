import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { triangulatePolygon } from '../../src/pipeline/import/triangulate-polygon.ts';
import { concavePolygons, polygonArea, polygonsFbx, polygonsObj } from '../fixtures/concave-polygons.ts';
import { quietLogger } from '../pipeline/documents.ts';
import { surfaceAreas } from '../pipeline/surface-area.ts';
import { triangleCount } from './support.ts';

const polygons = concavePolygons();
const expectedArea = polygons.reduce((sum, polygon) => sum + polygonArea(polygon), 0);
const expectedTriangles = polygons.reduce((sum, polygon) => sum + polygon.length - 2, 0);

for (const [format, write] of [
  ['obj', polygonsObj],
  ['fbx', polygonsFbx],
] as const) {
  void test(`concave ${format.toUpperCase()} polygons (L, U, spiral, mazes) keep their area and n − 2 triangles each`, async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-polygons-'));
    try {
      const file = path.join(dir, `floor.${format}`);
      await writeFile(file, write(polygons));
      const result = await convertModel({
        modelId: 'floor',
        source: { file, dir, format },
        logger: quietLogger,
      });
      const document = await (await createNodeIO()).readBinary(result.lods[0].glb);
      assert.equal(triangleCount(document), expectedTriangles);
      const { total } = surfaceAreas(document);
      assert.ok(
        Math.abs(total - expectedArea) <= expectedArea * 0.001,
        `LOD 0 area ${total} against the polygons' ${expectedArea}`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

/** Area of triangles over flat x, y, z corners. */
function trianglesArea(points: number[], triangles: number[]): number {
  let area = 0;
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [triangles[t] * 3, triangles[t + 1] * 3, triangles[t + 2] * 3];
    const u = [points[b] - points[a], points[b + 1] - points[a + 1], points[b + 2] - points[a + 2]];
    const v = [points[c] - points[a], points[c + 1] - points[a + 1], points[c + 2] - points[a + 2]];
    area += Math.hypot(u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]) / 2;
  }
  return area;
}

void test('a polygon with a hole, on a tilted plane and wound either way, is cut exactly', () => {
  // A 4 × 4 square with a 2 × 2 hole, in the plane x = z (tilted 45°), so the true area is 12 · √2.
  const ring = (points: [number, number][]) => points.flatMap(([u, v]) => [u, v, u]);
  const outer = ring([
    [0, 0],
    [4, 0],
    [4, 4],
    [0, 4],
  ]);
  const hole = ring([
    [1, 1],
    [1, 3],
    [3, 3],
    [3, 1],
  ]);
  for (const points of [
    [...outer, ...hole],
    [
      ...ring([
        [0, 0],
        [0, 4],
        [4, 4],
        [4, 0],
      ]),
      ...hole,
    ],
  ]) {
    const triangles = triangulatePolygon(points, [4]);
    assert.equal(triangles.length / 3, 8);
    assert.ok(Math.abs(trianglesArea(points, triangles) - 12 * Math.SQRT2) < 1e-9);
  }
  // Triangles keep the winding of the outer ring: their normals agree with its Newell normal.
  const spiral = concavePolygons()[2].flatMap(([x, y]) => [x, y, 0]);
  const triangles = triangulatePolygon(spiral);
  for (let t = 0; t < triangles.length; t += 3) {
    const [a, b, c] = [triangles[t] * 3, triangles[t + 1] * 3, triangles[t + 2] * 3];
    const cross =
      (spiral[b] - spiral[a]) * (spiral[c + 1] - spiral[a + 1]) -
      (spiral[c] - spiral[a]) * (spiral[b + 1] - spiral[a + 1]);
    assert.ok(cross > 0);
  }
});
