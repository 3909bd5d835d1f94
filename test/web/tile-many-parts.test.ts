// The viewer's loading of a tile of more parts than 16-bit feature ids tell apart (a coarse tile of a model of
// 100,000 small parts holds them all, its ids 32-bit floats): every part gets a mesh of its own with its own
// triangle, the parts past 65,536 included, as picking, paint and hiding need.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Vector3 } from 'three';
import type { Mesh } from 'three';
import { collectPartMeshes } from '../../web/src/viewer/part-meshes.ts';
import { createPartsLoader, splitByPart } from '../../web/src/viewer/tile-parts.ts';
import { triangleRowTile } from '../helpers/triangle-row-tile.ts';

const PARTS = 70_000;

void test('a tile of 70,000 parts loads with a mesh per part, each drawing its own triangle', async () => {
  const glb = await triangleRowTile(PARTS);
  const gltf = await createPartsLoader().parseAsync(glb.slice().buffer, '');
  splitByPart(gltf.scene);
  const parts = collectPartMeshes(gltf.scene);
  assert.equal(parts.size, PARTS);
  const corner = new Vector3();
  for (const part of [0, 65_535, 65_536, 65_537, PARTS - 1]) {
    const meshes = parts.get(`g${part}`) as Mesh[] | undefined;
    assert.equal(meshes?.length, 1, `g${part} has one mesh`);
    const mesh = meshes![0]!;
    assert.equal(mesh.name, `part ${part}`);
    assert.equal(mesh.geometry.index!.count, 3, `g${part} draws one triangle`);
    corner.fromBufferAttribute(mesh.geometry.getAttribute('position'), mesh.geometry.index!.getX(0));
    assert.ok(Math.abs(corner.x - part) <= 0.5, `g${part}'s triangle is at x = ${part}, not ${corner.x}`);
  }
});
