// An assembly of many small separate parts (boxes of 12 triangles, flat-shaded) tiles into inner tiles that are
// simplified as the tree's invariant asks: collapsed edge by edge, each box kept about its every triangle, so every
// level of the tree held the whole model; their vertices are clustered instead, within the tile's error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { TILESET_FILE, makeTiles } from '../../src/pipeline/tiles/make-tiles.ts';
import type { TileJson, TilesetJson } from '../../src/pipeline/tiles/tileset-json.ts';
import { collectTriangles } from '../../src/pipeline/tiles/triangle-soup.ts';
import { emptyDocument, quietLogger, readGlb } from './documents.ts';
import { boxArrays } from '../helpers/box-arrays.ts';

/** `count` boxes of 5 to 50 cm on a 1 m grid, each its own part, 50 shapes of box shared between them (bolts to beams). */
function smallBoxes(count: number): Document {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0]!;
  const scene = document.getRoot().listScenes()[0]!;
  const material = document.createMaterial('Steel');
  const meshes = Array.from({ length: 50 }, (_, shape) => {
    const side = 0.05 + shape * 0.009;
    const box = boxArrays([side, side * 0.8, side * 1.2]);
    const accessor = (type: 'VEC3' | 'SCALAR', array: Float32Array<ArrayBuffer> | Uint16Array<ArrayBuffer>) =>
      document.createAccessor().setType(type).setArray(array).setBuffer(buffer);
    const primitive = document
      .createPrimitive()
      .setMaterial(material)
      .setAttribute('POSITION', accessor('VEC3', box.positions))
      .setAttribute('NORMAL', accessor('VEC3', box.normals))
      .setIndices(accessor('SCALAR', box.indices));
    return document.createMesh(`Box ${shape}`).addPrimitive(primitive);
  });
  const row = Math.ceil(Math.sqrt(count));
  for (let part = 0; part < count; part++) {
    scene.addChild(
      document
        .createNode(`Box ${part}`)
        .setMesh(meshes[part % meshes.length]!)
        .setTranslation([part % row, 0, Math.floor(part / row)])
        .setExtras({ group_id: `b${part}` }),
    );
  }
  return document;
}

/** Every tile of a tree. */
function listTiles(tile: TileJson): TileJson[] {
  return [tile, ...(tile.children ?? []).flatMap(listTiles)];
}

/** The triangles a tile's file draws. */
async function trianglesOf(glb: Uint8Array): Promise<number> {
  const document = await readGlb(glb);
  let triangles = 0;
  for (const mesh of document.getRoot().listMeshes()) {
    for (const primitive of mesh.listPrimitives()) triangles += primitive.getIndices()!.getCount() / 3;
  }
  return triangles;
}

void test('inner tiles of 12,000 small separate boxes are simplified, every triangle kept in the leaves', async () => {
  const document = smallBoxes(12_000);
  const soup = collectTriangles(document, { logger: quietLogger });
  const total = soup.indices.length / 3;
  assert.equal(total, 12_000 * 12);
  const side = Math.ceil(Math.sqrt(12_000));
  const diagonal = Math.hypot(side, 1, side);

  const files = new Map<string, Uint8Array>();
  await makeTiles(
    soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      onFile: async (file, bytes) => void files.set(file, bytes),
    },
    { logger: quietLogger },
  );
  const tileset = JSON.parse(new TextDecoder().decode(files.get(TILESET_FILE))) as TilesetJson;
  const tiles = listTiles(tileset.root);
  assert.ok(tiles.length >= 4, `${tiles.length} tiles`);

  let leafTriangles = 0;
  for (const tile of tiles) {
    const triangles = await trianglesOf(files.get(tile.content.uri)!);
    if (!tile.children?.length) {
      leafTriangles += triangles;
      continue;
    }
    assert.ok(tile.geometricError > 0, `${tile.content.uri} stands for its children within an error`);
    assert.ok(
      tile.geometricError <= diagonal,
      `${tile.content.uri}: error ${tile.geometricError} m within the model's diagonal`,
    );
    assert.ok(triangles > 0, `${tile.content.uri} (inner) draws something`);
    assert.ok(
      triangles <= total / 4,
      `${tile.content.uri} (inner) holds ${triangles} of the model's ${total} triangles`,
    );
  }
  assert.equal(leafTriangles, total, 'the leaves keep every triangle');
});
