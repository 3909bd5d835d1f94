// IFC products placing one representation again share one mesh, each placed by its node: every product where the
// file puts it, turned as it turns it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { importIfc } from '../../src/pipeline/import/ifc/import-ifc.ts';
import { ifcFrame, ifcReal } from '../fixtures/ifc-frame.ts';
import { ifcFile } from '../fixtures/ifc-walls.ts';
import { recordingContext } from './support.ts';

let scratch: string;
before(async () => void (scratch = await mkdtemp(path.join(tmpdir(), 'vitrine-ifc-shared-'))));
after(() => rm(scratch, { recursive: true, force: true }));

/** Where each element stands and which way its x axis points (a unit vector in the storey's plane). */
interface Placement {
  at: [number, number];
  xAxis: [number, number];
}

/** An IFC4 storey of boxes 2 × 0.5 × 3 m, one representation placed once per element. */
function boxesIfc(placements: readonly Placement[]): string {
  const { lines, add, guid, owner, world, up, body, storey, storeyPlace } = ifcFrame(
    'Shared geometry',
    { name: 'Level 1', elevation: 0 },
    false,
  );
  const centre = add(`IFCCARTESIANPOINT((1.,0.25))`);
  const profile = add(`IFCRECTANGLEPROFILEDEF(.AREA.,$,${add(`IFCAXIS2PLACEMENT2D(${centre},$)`)},2.,0.5)`);
  const solid = add(`IFCEXTRUDEDAREASOLID(${profile},${world},${up},3.)`);
  const shape = add(`IFCSHAPEREPRESENTATION(${body},'Body','SweptSolid',(${solid}))`);
  const elements = placements.map(({ at, xAxis }, index) => {
    const corner = add(`IFCCARTESIANPOINT((${ifcReal(at[0])},${ifcReal(at[1])},0.))`);
    const direction = add(`IFCDIRECTION((${ifcReal(xAxis[0])},${ifcReal(xAxis[1])},0.))`);
    const placement = add(
      `IFCLOCALPLACEMENT(${storeyPlace},${add(`IFCAXIS2PLACEMENT3D(${corner},${up},${direction})`)})`,
    );
    const product = add(`IFCPRODUCTDEFINITIONSHAPE($,$,(${shape}))`);
    return add(
      `IFCBUILDINGELEMENTPROXY(${guid()},${owner},'Box ${index}',$,$,${placement},${product},$,.ELEMENT.)`,
    );
  });
  add(`IFCRELCONTAINEDINSPATIALSTRUCTURE(${guid()},${owner},$,$,(${elements.join(',')}),${storey})`);
  return ifcFile('boxes.ifc', 'Vitrine tests', lines);
}

void test('elements placing one representation share its mesh, each where and as turned as the file places it', async () => {
  const placements: Placement[] = [
    { at: [0, 0], xAxis: [1, 0] },
    { at: [10, 0], xAxis: [1, 0] },
    { at: [0, 20], xAxis: [0, 1] },
    { at: [-5, 7], xAxis: [-1, 0] },
  ];
  const file = path.join(scratch, 'boxes.ifc');
  await writeFile(file, boxesIfc(placements));
  const { document, sourceTriangleCount } = await importIfc.read(
    { file, dir: scratch, format: 'ifc' },
    recordingContext(),
  );
  assert.equal(document.getRoot().listMeshes().length, 1, 'one mesh for the four boxes');
  assert.equal(computeStats(document).triangle_count, sourceTriangleCount, 'every placed triangle drawn');
  const parts = extractParts(document, { modelId: 'm' }, recordingContext());
  assert.equal(parts.length, 4);
  // web-ifc turns IFC's Z up to +Y up: the storey's (x, y) is the scene's (x, −z), its height the scene's y.
  const expected = placements.map(({ at: [x, y], xAxis: [ax, ay] }) => {
    // The box's corners in the storey: its 2 m along the element's x axis, its 0.5 m along its y axis (x turned left).
    const corners = [0, 2].flatMap((u) =>
      [0, 0.5].map((v) => [x + u * ax - v * ay, y + u * ay + v * ax] as const),
    );
    const xs = corners.map(([cx]) => cx);
    const zs = corners.map(([, cy]) => -cy);
    return { min: [Math.min(...xs), 0, Math.min(...zs)], max: [Math.max(...xs), 3, Math.max(...zs)] };
  });
  parts.forEach((part, index) => {
    for (const corner of ['min', 'max'] as const)
      part.bounds[corner].forEach((value, axis) =>
        assert.ok(
          Math.abs(value - expected[index][corner][axis]) < 1e-4,
          `Box ${index} ${corner}[${axis}] is ${value}, ${expected[index][corner][axis]} expected`,
        ),
      );
  });
  // One shape: the same geometry hash; four places: four transforms.
  assert.equal(new Set(parts.map((part) => part.fingerprint.geometry)).size, 1);
  assert.equal(new Set(parts.map((part) => part.fingerprint.transform)).size, 4);
});
