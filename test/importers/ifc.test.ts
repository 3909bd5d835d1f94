import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { getBounds } from '@gltf-transform/core';
import type { Document, Node } from '@gltf-transform/core';
import { computeStats } from '../../src/pipeline/compute-stats.ts';
import { importIfc } from '../../src/pipeline/import/ifc/import-ifc.ts';
import { ifcWallsFixture, type IfcWallsStorey } from '../fixtures/ifc-walls.ts';
import { importerFor } from '../../src/pipeline/import/importers.ts';
import {
  MODELS,
  SAMPLES,
  errorsOf,
  importSample,
  readSample,
  recordingContext,
  validate,
} from './support.ts';

/** GlobalId → entity and Name, read straight from the IFC text; `name` is left out when it holds escapes. */
async function rootedObjects(
  file: string,
): Promise<Map<string, { entity: string; named: boolean; name?: string }>> {
  const text = await readFile(path.join(MODELS, file), 'latin1');
  const objects = new Map<string, { entity: string; named: boolean; name?: string }>();
  for (const match of text.matchAll(
    /^#\d+\s*=\s*(IFC\w+)\s*\(\s*'([0-9A-Za-z_$]{22})'\s*,[^,]*,\s*(\$|'((?:[^']|'')*)')/gm,
  )) {
    const raw = match[4];
    objects.set(match[2], {
      entity: match[1],
      named: raw !== undefined && raw.trim() !== '',
      name: raw !== undefined && !raw.includes('\\') ? raw.replace(/''/g, "'").trim() : undefined,
    });
  }
  return objects;
}

function parts(document: Document): Node[] {
  return document
    .getRoot()
    .listNodes()
    .filter((node) => node.getMesh());
}

function pathOf(node: Node): string {
  const names: string[] = [];
  for (let parent = node.getParentNode(); parent; parent = parent.getParentNode())
    names.unshift(parent.getName());
  return names.join('/');
}

void test('the registry hands ifc to importIfc', () => {
  assert.equal(importerFor('ifc'), importIfc);
});

for (const sample of SAMPLES.ifc) {
  void test(`${sample.file}: valid glTF, every triangle, one part per product named and keyed by the IFC`, async () => {
    const result = await importSample(sample.file);
    assert.ok(result.sourceTriangleCount! > 0);
    // Counted as drawn: products of the same pieces share a mesh, each placed by its node.
    assert.equal(computeStats(result.document).triangle_count, result.sourceTriangleCount);
    assert.equal(result.sourceUpAxis, '+Z');
    assert.deepEqual(errorsOf(await validate(result.document)), []);

    const objects = await rootedObjects(sample.file);
    const found = parts(result.document);
    const ids = found.map((node) => (node.getExtras() as { group_id: string }).group_id);
    assert.equal(new Set(ids).size, ids.length, 'group_ids are unique');
    for (const node of found) {
      const id = (node.getExtras() as { group_id: string }).group_id;
      const object = objects.get(id);
      assert.ok(object, `group_id ${id} is a GlobalId of the file`);
      if (!object.named) {
        assert.equal(node.getName().toUpperCase(), object.entity, 'an unnamed object is called by its class');
      } else if (object.name !== undefined) {
        assert.equal(node.getName(), object.name);
      }
    }
  });
}

void test('re-importing gives the same group_ids in the same order', async () => {
  for (const sample of SAMPLES.ifc) {
    const first = parts((await importSample(sample.file)).document).map((node) => node.getExtras().group_id);
    const second = parts((await readSample(sample.file)).document).map((node) => node.getExtras().group_id);
    assert.deepEqual(second, first);
  }
});

void test('AC14-FZK-Haus: parts sit under Project/Site/Building/Storey, in metres, Y up', async () => {
  const { document, sourceUnit } = await importSample('ifc/AC14-FZK-Haus.ifc');
  assert.equal(sourceUnit, 'm');
  const paths = new Set(parts(document).map(pathOf));
  assert.deepEqual([...paths].sort(), [
    'Projekt',
    'Projekt/Gelände/AC14-FZK-Haus/0. Erdgeschoss',
    'Projekt/Gelände/AC14-FZK-Haus/1. Dachgeschoss',
  ]);
  const slab = parts(document).find((node) => node.getExtras().group_id === '1pPHnf7cXCpPsNEnQf8_6B');
  assert.equal(slab?.getName(), 'Bodenplatte');
  assert.equal(slab?.getExtras().ifc_type, 'IfcSlab');

  const house = parts(document).filter((node) => pathOf(node) !== 'Projekt');
  const heights = house.map((node) => getBounds(node)).map((bounds) => [bounds.min[1], bounds.max[1]]);
  const bottom = Math.min(...heights.map(([low]) => low));
  const top = Math.max(...heights.map(([, high]) => high));
  // A two-storey family house: about 6 m from the base slab to the ridge.
  assert.ok(top - bottom > 5 && top - bottom < 8, `house height ${top - bottom}`);
  const blended = document
    .getRoot()
    .listMaterials()
    .filter((material) => material.getAlphaMode() === 'BLEND');
  assert.ok(
    blended.length > 0 && blended.every((material) => material.getAlpha() < 1),
    'glazing is translucent',
  );
});

void test('an unnamed storey is named by its LongName, else its Elevation, else the height of its placement', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'vitrine-storey-'));
  try {
    const storeyPath = async (storey: IfcWallsStorey) => {
      const file = path.join(dir, 'storey.ifc');
      await writeFile(file, ifcWallsFixture(storey));
      const { document } = await importIfc.read({ file, dir, format: 'ifc' }, recordingContext());
      return [...new Set(parts(document).map(pathOf))];
    };
    const building = 'Fixture project/Site/Building';
    assert.deepEqual(await storeyPath({ longName: 'Level 2', elevation: 3 }), [`${building}/Level 2`]);
    assert.deepEqual(await storeyPath({ elevation: 3 }), [`${building}/Storey at +3.00 m`]);
    assert.deepEqual(await storeyPath({ elevation: -1.255 }), [`${building}/Storey at -1.25 m`]);
    assert.deepEqual(await storeyPath({ placedAt: 2.7 }), [`${building}/Storey at +2.70 m`]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test('IFC4 and IFC4X3 samples: unnamed spatial elements fall back to their class (a storey to its height), millimetres recorded', async () => {
  const house = await importSample('ifc/IfcOpenHouse_IFC4.ifc');
  assert.equal(house.sourceUnit, 'mm');
  // Its storey (#38) has no Name, LongName, ObjectType nor Elevation: its placement puts it at 0.
  assert.ok(
    parts(house.document).some(
      (node) => pathOf(node) === 'IfcOpenHouse/IfcSite/IfcBuilding/Storey at +0.00 m',
    ),
  );
  const beams = await importSample('ifc/beam-standard-case.ifc');
  assert.equal(beams.sourceUnit, 'mm');
  assert.deepEqual(
    [...new Set(parts(beams.document).map(pathOf))],
    ['Test model for beam cardinal points/Site/Building'],
  );
  const { min, max } = getBounds(beams.document.getRoot().listScenes()[0]);
  // Beams about 12 m long laid out in millimetres: metres after import.
  assert.ok(Math.max(...max.map((value, axis) => value - min[axis])) < 20);
});

void test('is heard from inside the geometry stream, product by product, its progress never falling', async () => {
  const file = path.join(MODELS, 'ifc/IfcOpenHouse_IFC4.ifc');
  const fractions: number[] = [];
  await importIfc.read(
    { file, dir: path.dirname(file), format: 'ifc' },
    { ...recordingContext(), onProgress: (fraction) => fractions.push(fraction) },
  );
  // One report per product streamed (35 with geometry), where the stream begins: it tells no fraction of the whole.
  const streaming = fractions.filter((fraction) => fraction === 0.1);
  assert.ok(streaming.length >= 35, `${streaming.length} reports while streaming the geometry`);
  assert.deepEqual(
    fractions,
    [...fractions].sort((a, b) => a - b),
  );
  assert.equal(fractions.at(-1), 1);
});
