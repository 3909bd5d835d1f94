// The document a tiled model's thumbnail is drawn from (src/render/scene/tile-parts-document.ts): the cut's tiles
// under a node each, drawn whole, every vertex keeping its part through one table of all the tiles' parts, so the
// renderer paints a bound part in every tile it spans without a node per part being made.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Document, Primitive } from '@gltf-transform/core';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import { featureParts } from '../../src/render/scene/feature-group-ids.ts';
import { readFloats } from '../../src/render/scene/read-attribute.ts';
import { tilePartsDocument } from '../../src/render/scene/tile-parts-document.ts';
import { batchedSphereRow, readGlb, validationErrors } from '../pipeline/documents.ts';
import { decodeRgba } from './silhouette.ts';

const SIZE = { width: 512, height: 512, view: { azimuth: 0, elevation: 0 } };
/** The parts painted green: a run of the first tile's row, wide enough to show at this size. */
const GREEN = Array.from({ length: 30 }, (_, i) => `p${i + 20}`);

/** Each drawn vertex of a document as its world position (to 1e-4) and its part's `group_id`, sorted. */
function vertexParts(document: Document): string[] {
  const rows: string[] = [];
  for (const node of document.getRoot().listNodes()) {
    const world = node.getWorldMatrix();
    for (const primitive of node.getMesh()?.listPrimitives() ?? []) {
      const parts = featureParts(primitive);
      const positions = readFloats(primitive.getAttribute('POSITION')!);
      for (let vertex = 0; vertex < positions.length / 3; vertex++) {
        const [x, y, z] = [0, 1, 2].map((axis) => positions[vertex * 3 + axis]!);
        const at = [0, 1, 2].map(
          (row) => world[row]! * x + world[4 + row]! * y + world[8 + row]! * z + world[12 + row]!,
        );
        const groupId = parts ? parts.groupIds[parts.vertexFeatures[vertex]!] : 'none';
        rows.push(`${at.map((value) => value.toFixed(4)).join(',')} ${groupId}`);
      }
    }
  }
  return rows.sort();
}

/** The primitives of a document. */
function primitives(document: Document): Primitive[] {
  return document
    .getRoot()
    .listMeshes()
    .flatMap((mesh) => mesh.listPrimitives());
}

/** Two batched tiles whose parts overlap: p0–p79 in both, p80–p99 in the second only. */
function twoTiles(): Document[] {
  const first = batchedSphereRow(80, 3).document;
  const second = batchedSphereRow(100, 4).document;
  second.getRoot().listNodes()[0]!.setTranslation([0, 2, 0]);
  return [first, second];
}

void test('each tile is a node drawing its triangles whole, each vertex in its own part, one table for all', async () => {
  const tiles = twoTiles();
  const document = tilePartsDocument(tiles);
  assert.equal(document.getRoot().listNodes().length, 2, 'a node per tile, none per part');
  const tables = new Set(primitives(document).map((primitive) => featureParts(primitive)!.groupIds.join()));
  assert.equal(tables.size, 1, 'one table of parts');
  const [groupIds] = [...tables].map((table) => table.split(','));
  assert.deepEqual(new Set(groupIds), new Set(Array.from({ length: 100 }, (_, i) => `p${i}`)));
  assert.deepEqual(vertexParts(document), [...vertexParts(tiles[0]!), ...vertexParts(tiles[1]!)].sort());
  const glb = await (await createNodeIO()).writeBinary(document);
  assert.deepEqual(await validationErrors(glb), []);
});

void test('a bound part is painted as it is in the tile itself', async () => {
  const [tile] = twoTiles();
  const io = await createNodeIO();
  const colour = { color: [0, 0.8, 0] as [number, number, number], alpha: 1 };
  const options = { ...SIZE, materialOverrides: new Map(GREEN.map((groupId) => [groupId, colour])) };
  const direct = await decodeRgba(await renderThumbnail(await io.writeBinary(tile!), options));
  const laidOut = await readGlb(await io.writeBinary(tilePartsDocument([tile!])));
  const drawn = await decodeRgba(await renderThumbnail(await io.writeBinary(laidOut), options));
  const green = (data: Uint8Array) => {
    let count = 0;
    for (let at = 0; at < data.length; at += 4) if (data[at + 1]! > data[at]! + 60) count++;
    return count;
  };
  assert.ok(green(direct.data) > 20, 'the bound part shows');
  const [shown, expected] = [green(drawn.data), green(direct.data)];
  assert.ok(
    Math.abs(shown - expected) <= expected * 0.02,
    `${shown} green pixels where the tile shows ${expected}`,
  );
});
