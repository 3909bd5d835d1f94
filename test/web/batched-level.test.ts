// The viewer's loading of a batched level (a model of many parts drawn a few primitives per material, each part a
// feature id): the level loader reads the feature ids and table of parts, and splitByPart gives every part a mesh
// of its own with its triangles, as a level of few parts has, so picking, paint, hiding and ghosts find it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Mesh } from 'three';
import { collectPartMeshes } from '../../web/src/viewer/part-meshes.ts';
import { splitByPart } from '../../web/src/viewer/tile-parts.ts';
import { loadServedLevel } from '../helpers/served-level.ts';
import { batchedSphereRow } from '../pipeline/documents.ts';

const PARTS = 90;

void test('a batched level loads with a mesh per part, each with its own triangles', async () => {
  // Two materials and spheres of different sizes: a part's triangles are found in either primitive.
  const { document, triangles } = batchedSphereRow(PARTS, 5);
  // Served as the levels are: meshopt-compressed and quantized.
  const gltf = await loadServedLevel(document);
  let batched = 0;
  gltf.scene.traverse((object) => void ((object as Mesh).isMesh && batched++));
  assert.equal(batched, 2, 'one primitive per material');
  const split = splitByPart(gltf.scene);
  const parts = collectPartMeshes(gltf.scene);
  assert.equal(parts.size, PARTS);
  assert.deepEqual([...split.keys()].sort(), [...parts.keys()].sort());
  for (const [groupId, meshes] of parts) {
    const drawn = meshes.reduce((sum, mesh) => sum + mesh.geometry.index!.count / 3, 0);
    assert.equal(drawn, triangles.get(groupId), groupId);
    assert.equal(meshes[0]!.name, `part ${groupId.slice(1)}`);
  }
});
