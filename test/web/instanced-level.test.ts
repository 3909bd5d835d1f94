// The viewer's loading of a level whose shared meshes are drawn as instances (EXT_mesh_gpu_instancing, each
// instance's part by EXT_instance_features): GLTFLoader makes an InstancedMesh of each, and splitByPart gives every
// instance a mesh of its own where the part was, tagged with its group_id, sharing the instanced geometry so the view
// can draw the plain ones instanced again.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { vec3, vec4 } from '@gltf-transform/core';
import { Vector3 } from 'three';
import type { InstancedMesh, Mesh } from 'three';
import { batchParts } from '../../src/pipeline/lods/batch-parts.ts';
import { collectPartMeshes } from '../../web/src/viewer/part-meshes.ts';
import { splitByPart } from '../../web/src/viewer/tile-parts.ts';
import { loadServedLevel } from '../helpers/served-level.ts';
import { addSphere, emptyDocument, quietLogger, worldCentre } from '../pipeline/documents.ts';

const PARTS = 90;

void test('an instanced level loads with a mesh per part, where the part was, sharing its geometry', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0]!;
  const spheres = [0.2, 0.25, 0.3].map((radius) => addSphere(document, 8, 6, radius));
  for (let i = 0; i < PARTS; i++) {
    const angle = (i / PARTS) * Math.PI;
    scene.addChild(
      document
        .createNode(`part ${i}`)
        .setMesh(spheres[i % spheres.length]!)
        .setTranslation([i % 10, Math.floor(i / 10), i % 3])
        .setRotation([Math.sin(angle / 2), 0, 0, Math.cos(angle / 2)] as vec4)
        .setScale((i % 4 === 0 ? [2, 1, 1] : [1, 1, 1]) as vec3)
        .setExtras({ group_id: `p${i}` }),
    );
  }
  const centres = new Map(
    scene.listChildren().map((node) => [node.getExtras().group_id as string, worldCentre(node)]),
  );
  assert.equal(batchParts(document, {}, { logger: quietLogger }), PARTS);
  // Served as LOD 1 and 2 are: the instances' placements carry the grid's scale.
  const gltf = await loadServedLevel(document);
  let instanced = 0;
  gltf.scene.traverse((object) => void ((object as InstancedMesh).isInstancedMesh && instanced++));
  assert.equal(instanced, spheres.length, 'an InstancedMesh per shared mesh');
  splitByPart(gltf.scene);
  gltf.scene.traverse((object) => assert.ok(!(object as InstancedMesh).isInstancedMesh, 'none left'));
  gltf.scene.updateMatrixWorld(true);
  const parts = collectPartMeshes(gltf.scene);
  assert.equal(parts.size, PARTS);
  const geometries = new Set<unknown>();
  for (const [groupId, meshes] of parts) {
    assert.equal(meshes.length, 1, groupId);
    const mesh = meshes[0] as Mesh;
    assert.equal(mesh.name, `part ${groupId.slice(1)}`);
    assert.equal(mesh.geometry.getAttribute('_FEATURE_ID_0'), undefined, 'the instance attribute is gone');
    geometries.add(mesh.geometry);
    mesh.geometry.computeBoundingBox();
    const centre = mesh.localToWorld(mesh.geometry.boundingBox!.getCenter(new Vector3()));
    const expected = centres.get(groupId)!;
    // The quantized grid of a model about 10 m wide: 14 bits.
    assert.ok(centre.distanceTo(new Vector3(...expected)) < 5e-3, `${groupId} at ${centre.toArray()}`);
  }
  assert.equal(geometries.size, spheres.length, 'the parts of a shared mesh share its geometry');
});
