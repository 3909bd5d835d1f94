// How long `GET /api/models/:id/parts?where=…` takes on a model of 10,000 parts with 20 properties each (200,000
// filter rows), through the whole app (route, validation, lookup, material bindings, JSON), on SQLite and, when
// TEST_DATABASE_URL is set, PostgreSQL. The target is 50 ms.
// Usage: TEST_DATABASE_URL=postgres://… nice npx tsx bench/part-properties.ts
import { createModelRepository } from '../src/catalog/repository.ts';
import type { PartInfo } from '../src/pipeline/types.ts';
import { testDialects } from '../test/helpers/databases.ts';
import { createTestApp } from '../test/helpers/test-app.ts';

const PARTS = 10_000;
const RUNS = 30;
const MODEL_ID = '11111111-1111-4111-8111-111111111111';

/** `n` as 32 hex digits, the width of a fingerprint's hashes. */
function hex(n: number): string {
  return n.toString(16).padStart(32, '0');
}

/** Part `index`: a wall every 4th part, external every 8th, with 16 more properties of varied types. */
function part(index: number): PartInfo {
  const wall = index % 4 === 0;
  const extra: Record<string, string | number | boolean> = {};
  for (let n = 0; n < 16; n++)
    extra[`Property${n}`] = n % 3 === 0 ? index * n : n % 3 === 1 ? `value ${index % 50}` : n % 2 === 0;
  return {
    group_id: `guid-${index}`,
    name: `${wall ? 'Wall' : 'Slab'} ${index}`,
    path: 'Project/Site/Building/Storey',
    triangle_count: 12,
    vertex_count: 24,
    bounds: { min: [0, 0, 0], max: [1, 1, 1] },
    properties: {
      Element: { Class: wall ? 'IfcWall' : 'IfcSlab', Storey: `Storey ${index % 5}` },
      [wall ? 'Pset_WallCommon' : 'Pset_SlabCommon']: { IsExternal: index % 8 === 0, LoadBearing: true },
      Other: extra,
    },
    // Distinct per part, as a real model's would be; the filter never reads them.
    fingerprint: {
      geometry: hex(index),
      transform: hex(index + PARTS),
      properties: hex(index + 2 * PARTS),
      material: hex(wall ? 1 : 2),
    },
  };
}

const QUERIES = {
  'where=Pset_WallCommon.IsExternal=true (1,250 parts)': '?where=Pset_WallCommon.IsExternal=true',
  'two conditions (250 parts)': '?where=Pset_WallCommon.IsExternal=true&where=Element.Storey=Storey%200',
  'where=Element.Class=IfcSlab (7,500 parts)': '?where=Element.Class=IfcSlab',
  'q=wall 12 (29 parts)': '?q=wall%2012',
  'no filter (10,000 parts)': '',
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

for (const dialect of testDialects()) {
  const testApp = await createTestApp(dialect);
  try {
    const models = createModelRepository(testApp.database);
    await models.create({
      id: MODEL_ID,
      name: 'bench',
      description: '',
      original_filename: 'bench.ifc',
      format: 'ifc',
      file_size: 1,
      status: 'processing',
      progress: 0,
      source_key: `models/${MODEL_ID}/source/bench.ifc`,
      source_entry: null,
      unit: null,
      up_axis: null,
      lods: '[]',
      tags: '[]',
    });
    const parts = Array.from({ length: PARTS }, (_, index) => part(index));
    const storing = performance.now();
    await models.complete(MODEL_ID, {
      lods: [],
      tileset_key: null,
      tilesetCutGlb: null,
      parts,
      triangle_count: 1,
      vertex_count: 1,
      bounds: { min: [0, 0, 0], max: [1, 1, 1] },
      source_unit: 'm',
      source_up_axis: '+Z',
    });
    console.log(`${dialect}: stored ${PARTS} parts in ${(performance.now() - storing).toFixed(0)} ms`);
    for (const [label, query] of Object.entries(QUERIES)) {
      const times: number[] = [];
      let count = 0;
      for (let run = 0; run < RUNS; run++) {
        const start = performance.now();
        const response = await testApp.app.inject({
          method: 'GET',
          url: `/api/models/${MODEL_ID}/parts${query}`,
          headers: testApp.auth,
        });
        times.push(performance.now() - start);
        if (response.statusCode !== 200) throw new Error(`${label}: ${response.statusCode} ${response.body}`);
        count = JSON.parse(response.body).data.length;
      }
      console.log(
        `${dialect}  ${label.padEnd(52)} ${String(count).padStart(6)} parts  median ${median(times).toFixed(1)} ms  max ${Math.max(...times).toFixed(1)} ms`,
      );
    }
  } finally {
    await testApp.close();
  }
}
