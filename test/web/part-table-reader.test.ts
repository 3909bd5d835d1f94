// The viewer's reader of a level's table of parts: every row as the metadata plugin reads it, names in any script
// included, whether the parts are instances or batched; a table laid out otherwise is read through the plugin.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Mesh, Object3D } from 'three';
import { batchParts } from '../../src/pipeline/lods/batch-parts.ts';
import { partRowReader, type PartTable } from '../../web/src/viewer/part-table-reader.ts';
import { loadServedLevel } from '../helpers/served-level.ts';
import { addPartNode, addSphere, emptyDocument, quietLogger } from '../pipeline/documents.ts';

const PARTS = 80;
/** Names a UTF-8 string column must give back whole: accents, other scripts, a character past the BMP, none. */
const NAMES = ['Träger ø 12', '梁 3', 'Ступень', '🔩 bolt', 'plain', ''];

/** A level of `PARTS` parts, half of them four shared spheres (instances), half spheres of their own (batched). */
async function loadedLevel(): Promise<Object3D> {
  const document = emptyDocument();
  const shared = [0, 1, 2, 3].map((shape) => addSphere(document, 8, 6, 0.2 + shape / 20));
  for (let i = 0; i < PARTS; i++) {
    const mesh = i % 2 ? shared[i % 4]! : addSphere(document, 6 + (i % 5), 4, 0.3 + i / 500);
    addPartNode(document, mesh, i).setName(`${NAMES[i % NAMES.length]} ${i}`);
  }
  assert.equal(batchParts(document, {}, { logger: quietLogger }), PARTS);
  return (await loadServedLevel(document)).scene;
}

/** Every table of parts the loaded level carries, each with its index. */
function tablesOf(scene: Object3D): { table: PartTable; index: number }[] {
  const found = new Set<PartTable>();
  const record = (object: Object3D) => {
    const table = object.userData.structuralMetadata as PartTable | undefined;
    if (table) found.add(table);
  };
  record(scene);
  scene.traverse((object) => void ((object as Mesh).isMesh && record(object)));
  return [...found].flatMap((table) => (table.tableAccessors ?? []).map((_, index) => ({ table, index })));
}

void test('reads every row as the plugin does, names in any script included', async () => {
  const tables = tablesOf(await loadedLevel());
  assert.ok(tables.length > 0, 'the level carries its table of parts');
  let rows = 0;
  for (const { table, index } of tables) {
    let pluginReads = 0;
    const read = partRowReader(
      {
        tableAccessors: table.tableAccessors,
        getPropertyTableData: (at, id) => (pluginReads++, table.getPropertyTableData(at, id)),
      },
      index,
    );
    const count = (table.tableAccessors![index] as { count: number }).count;
    for (let id = 0; id < count; id++) {
      const expected = table.getPropertyTableData(index, id);
      assert.deepEqual(read(id), { group_id: expected.group_id, name: expected.name }, `row ${id}`);
      rows++;
    }
    assert.equal(pluginReads, 0, 'every row read from the buffers');
    assert.throws(() => read(count), /outside the range/, 'a row past the table is refused as before');
  }
  assert.ok(rows >= PARTS, `${rows} rows read`);
});

void test('a table laid out otherwise is read through the plugin', async () => {
  const [{ table, index }] = tablesOf(await loadedLevel());
  const calls: number[] = [];
  const counting = (tableAccessors: unknown[] | undefined): PartTable => ({
    tableAccessors,
    getPropertyTableData: (at, id) => (calls.push(id), table.getPropertyTableData(at, id)),
  });
  const accessor = table.tableAccessors![index] as { properties: Record<string, object> };
  const withNoData = {
    ...accessor,
    properties: { ...accessor.properties, name: { ...accessor.properties.name, noData: 'n/a' } },
  };
  for (const layout of [undefined, [withNoData]]) {
    calls.length = 0;
    const read = partRowReader(counting(layout), 0);
    assert.deepEqual(read(3), table.getPropertyTableData(index, 3));
    assert.deepEqual(calls, [3], 'read through the plugin');
  }
});
