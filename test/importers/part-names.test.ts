import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { colladaNames } from '../../src/pipeline/name-parts.ts';
import { SAMPLES, importSample, recordingContext } from './support.ts';

/** Part names of a sample as the catalog lists them. */
async function partNames(file: string): Promise<string[]> {
  const { document } = await importSample(file);
  return extractParts(document, { modelId: 'm' }, recordingContext()).map((part) => part.name);
}

void test('no part of any assimp sample is called node, node3 or defaultobject', async () => {
  for (const { file } of SAMPLES.assimp) {
    for (const name of await partNames(file)) assert.doesNotMatch(name, /^(node\d*|defaultobject|)$/i, file);
  }
});

void test('an STL or an OBJ without object names is named after its file', async () => {
  assert.deepEqual(await partNames('stl/cyl_w_rect_hole.stl'), ['cyl_w_rect_hole']);
  assert.deepEqual(await partNames('obj/spot_triangulated.obj'), ['spot_triangulated']);
});

void test('COLLADA parts take the name the author gave, not the id', async () => {
  const names = await partNames('dae/franka_fer_link0.dae');
  // Nodes are numbered (node0 …); their geometries are named Part__Feature017.001 with id Part__Feature017_001-mesh.
  assert.equal(names[0], 'Part__Feature017.001');
  assert.ok(names.every((name) => !name.endsWith('-mesh')));
  const ids = colladaNames(
    new TextEncoder().encode(
      '<library_nodes><node id="wheel_L" name="Front wheel &amp; hub" type="NODE"/><node id="same" name="same"/></library_nodes>',
    ),
  );
  assert.deepEqual([...ids], [['wheel_L', 'Front wheel & hub']]);
});
