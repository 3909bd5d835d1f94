import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Primitive } from '@gltf-transform/core';
import type { Document } from '@gltf-transform/core';
import type { StructuralMetadata } from '@gltf-transform/extensions';
import { MeshoptSimplifier } from 'meshoptimizer';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { TILESET_FILE, makeTiles } from '../../src/pipeline/tiles/make-tiles.ts';
import type { TileJson, TilesetJson } from '../../src/pipeline/tiles/tileset-json.ts';
import { volumeBox } from '../../src/pipeline/tiles/tileset-json.ts';
import { collectTriangles } from '../../src/pipeline/tiles/triangle-soup.ts';
import { tileCutGlb } from '../../src/render/scene/tile-cut-glb.ts';
import { addSphere, emptyDocument, quietLogger, readGlb, validationErrors } from './documents.ts';
import { spheresAndTerrain } from './spheres-terrain.ts';
import { torus } from './torus.ts';

/** Four tori of 500,000 triangles each, placed apart (one turned and scaled), each its own part and material. */
function fourTori(): Document {
  const document = emptyDocument();
  const buffer = document.getRoot().listBuffers()[0];
  const scene = document.getRoot().listScenes()[0];
  for (let part = 0; part < 4; part++) {
    const mesh = torus(500, 500);
    const primitive = document
      .createPrimitive()
      .setAttribute(
        'POSITION',
        document.createAccessor().setType('VEC3').setArray(mesh.positions).setBuffer(buffer),
      )
      .setIndices(document.createAccessor().setType('SCALAR').setArray(mesh.indices).setBuffer(buffer))
      .setMaterial(document.createMaterial(`Paint ${part}`).setBaseColorFactor([part / 4, 0.5, 0.5, 1]));
    const node = document
      .createNode(`Ring ${part}`)
      .setMesh(document.createMesh(`Ring ${part}`).addPrimitive(primitive))
      .setTranslation([part * 2.5, 0, part % 2]);
    if (part === 3) node.setRotation([0, 0, Math.SQRT1_2, Math.SQRT1_2]).setScale([1.5, 1.5, 1.5]);
    scene.addChild(node);
  }
  return document;
}

/** Every tile of a tileset with its depth (the root at 0). */
function listTiles(tile: TileJson, depth = 0): { tile: TileJson; depth: number }[] {
  return [{ tile, depth }, ...(tile.children ?? []).flatMap((child) => listTiles(child, depth + 1))];
}

/** A tile's triangles and its vertices' extreme corners, in the model's frame (node transforms applied). */
function measureTile(document: Document): { triangles: number; min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  let triangles = 0;
  for (const node of document.getRoot().listNodes()) {
    const matrix = node.getWorldMatrix();
    for (const primitive of node.getMesh()?.listPrimitives() ?? []) {
      assert.equal(primitive.getMode(), Primitive.Mode.TRIANGLES);
      triangles += primitive.getIndices()!.getCount() / 3;
      const position = primitive.getAttribute('POSITION')!;
      const element: number[] = [];
      for (let i = 0; i < position.getCount(); i++) {
        const [x, y, z] = position.getElement(i, element);
        for (let axis = 0; axis < 3; axis++) {
          const value = matrix[axis] * x + matrix[4 + axis] * y + matrix[8 + axis] * z + matrix[12 + axis];
          min[axis] = Math.min(min[axis], value);
          max[axis] = Math.max(max[axis], value);
        }
      }
    }
  }
  return { triangles, min, max };
}

/** The `group_id`s of a tile's table of parts. */
function tileGroupIds(document: Document): string[] {
  const metadata = document.getRoot().getExtension<StructuralMetadata>('EXT_structural_metadata');
  assert.ok(metadata, 'the tile has structural metadata');
  const [table] = metadata.listPropertyTables();
  const column = table.getProperty('group_id')!;
  const offsets = new Uint32Array(column.getStringOffsets()!.slice().buffer);
  const text = new TextDecoder();
  const values = column.getValues();
  return Array.from({ length: table.getCount() }, (_, i) =>
    text.decode(values.subarray(offsets[i], offsets[i + 1])),
  );
}

void test('a 2 M-triangle model of four parts tiles into a valid tree that keeps every triangle and part', async () => {
  const document = fourTori();
  const parts = extractParts(document, { modelId: 'tori' }, { logger: quietLogger });
  const soup = collectTriangles(document, { logger: quietLogger });
  const sourceTriangles = soup.indices.length / 3;
  assert.equal(sourceTriangles, 2_000_000);

  const files = new Map<string, Uint8Array>();
  const progress: number[] = [];
  const summary = await makeTiles(
    soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      onFile: async (file, bytes) => void files.set(file, bytes),
    },
    { logger: quietLogger, onProgress: (share) => progress.push(share) },
  );
  assert.ok(progress.length > 10 && progress.at(-1) === 1, 'progress moves as the tree is built');
  const tileset = JSON.parse(new TextDecoder().decode(files.get(TILESET_FILE))) as TilesetJson;
  assert.deepEqual(tileset, summary.tileset);
  assert.equal(tileset.asset.version, '1.1');
  assert.equal(tileset.root.refine, 'REPLACE');

  const box = soup.positions.reduce(
    (bounds, value, index) => {
      bounds.min[index % 3] = Math.min(bounds.min[index % 3], value);
      bounds.max[index % 3] = Math.max(bounds.max[index % 3], value);
      return bounds;
    },
    { min: [Infinity, Infinity, Infinity], max: [-Infinity, -Infinity, -Infinity] },
  );
  const diagonal = Math.hypot(...box.max.map((value, axis) => value - box.min[axis]));
  assert.ok(
    tileset.root.geometricError > 0 && tileset.root.geometricError <= diagonal,
    'root error ≤ diagonal',
  );

  const tolerance = diagonal * 1e-9;
  let leafTriangles = 0;
  const leafGroups = new Set<string>();
  const tiles = listTiles(tileset.root);
  assert.equal(tiles.length, files.size - 1, 'one file per tile');
  assert.ok(
    tiles.some(({ depth }) => depth >= 2),
    'the tree is deep enough to mean something',
  );
  for (const { tile } of tiles) {
    const glb = files.get(tile.content.uri)!;
    assert.ok(glb, `${tile.content.uri} was written`);
    assert.deepEqual(await validationErrors(glb), [], `${tile.content.uri} validates`);
    const content = await readGlb(glb);
    const measured = measureTile(content);
    assert.ok(
      content
        .getRoot()
        .listMeshes()
        .every((mesh) => mesh.listPrimitives().every((primitive) => !primitive.getAttribute('NORMAL'))),
      `${tile.content.uri}: the tori have no normals, so the tile has none either (drawn flat, as the levels are)`,
    );
    const volume = volumeBox(tile.boundingVolume.box);
    for (let axis = 0; axis < 3; axis++) {
      assert.ok(volume.min[axis] - tolerance <= measured.min[axis], `${tile.content.uri} holds its content`);
      assert.ok(measured.max[axis] <= volume.max[axis] + tolerance, `${tile.content.uri} holds its content`);
    }
    for (const child of tile.children ?? []) {
      assert.ok(child.geometricError < tile.geometricError, 'error falls strictly with depth');
      const inner = volumeBox(child.boundingVolume.box);
      for (let axis = 0; axis < 3; axis++) {
        assert.ok(volume.min[axis] - tolerance <= inner.min[axis], `${tile.content.uri} holds its children`);
        assert.ok(inner.max[axis] <= volume.max[axis] + tolerance, `${tile.content.uri} holds its children`);
      }
    }
    if (!tile.children) {
      assert.ok(measured.triangles <= 65_536, 'a leaf holds at most 64 k triangles');
      assert.equal(tile.geometricError, 0, 'a leaf is full resolution');
      leafTriangles += measured.triangles;
      for (const id of tileGroupIds(content)) leafGroups.add(id);
    } else {
      assert.ok(measured.triangles < sourceTriangles / 4, 'an inner tile is simplified');
    }
  }
  assert.ok(
    Math.abs(leafTriangles - sourceTriangles) <= sourceTriangles * 0.001,
    `${leafTriangles} leaf triangles`,
  );
  // A cut a thumbnail is drawn from, within a budget of eight tiles: its tiles laid out as one, parts as feature ids.
  const budget = 8 * 65_536;
  const cut = await readGlb((await tileCutGlb(tileset.root, async (uri) => files.get(uri), budget)).glb);
  const cutGroups = tileGroupIds(cut);
  assert.deepEqual(cutGroups.sort(), parts.map((part) => part.group_id).sort(), 'the cut keeps every part');
  const cutTriangles = measureTile(cut).triangles;
  assert.ok(cutTriangles > 0 && cutTriangles <= budget, `the cut holds ${cutTriangles} triangles`);
  assert.deepEqual(
    [...leafGroups].sort(),
    parts.map((part) => part.group_id).sort(),
    'every part is in the leaves',
  );
});

void test('tiles carry normals where the model has them, smoothed for its primitives without', async () => {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  scene.addChild(document.createNode('Ball').setMesh(addSphere(document, 64, 32)));
  const ring = torus(40, 20);
  const buffer = document.getRoot().listBuffers()[0];
  const primitive = document
    .createPrimitive()
    .setAttribute(
      'POSITION',
      document.createAccessor().setType('VEC3').setArray(ring.positions).setBuffer(buffer),
    )
    .setIndices(document.createAccessor().setType('SCALAR').setArray(ring.indices).setBuffer(buffer));
  scene.addChild(
    document
      .createNode('Ring')
      .setMesh(document.createMesh('Ring').addPrimitive(primitive))
      .setTranslation([3, 0, 0]),
  );
  const soup = collectTriangles(document, { logger: quietLogger });
  assert.ok(soup.normals, 'the soup keeps normals');
  for (let vertex = 0; vertex < soup.normals.length / 3; vertex++) {
    const length = Math.hypot(...soup.normals.subarray(vertex * 3, vertex * 3 + 3));
    assert.ok(Math.abs(length - 1) < 1e-5, `vertex ${vertex} has a unit normal`);
  }
  const files = new Map<string, Uint8Array>();
  await makeTiles(
    soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      maxLeafTriangles: 1024,
      onFile: async (file, bytes) => void files.set(file, bytes),
    },
    { logger: quietLogger },
  );
  assert.ok(files.size > 3, `${files.size} files`);
  for (const [file, glb] of files) {
    if (file === TILESET_FILE) continue;
    const content = await readGlb(glb);
    for (const mesh of content.getRoot().listMeshes())
      for (const tilePrimitive of mesh.listPrimitives())
        assert.ok(tilePrimitive.getAttribute('NORMAL'), `${file} carries normals`);
  }
});

void test('a one-material model’s leaves, ordered for the codec, hold exactly its triangles, facing the same way', async () => {
  const document = emptyDocument();
  const ring = torus(120, 60);
  const buffer = document.getRoot().listBuffers()[0];
  const primitive = document
    .createPrimitive()
    .setAttribute(
      'POSITION',
      document.createAccessor().setType('VEC3').setArray(ring.positions).setBuffer(buffer),
    )
    .setIndices(document.createAccessor().setType('SCALAR').setArray(ring.indices).setBuffer(buffer))
    .setMaterial(document.createMaterial('Only'));
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ring').setMesh(document.createMesh('Ring').addPrimitive(primitive)));
  const soup = collectTriangles(document, { logger: quietLogger });
  assert.equal(soup.materials.length, 1);
  const files = new Map<string, Uint8Array>();
  const summary = await makeTiles(
    soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      maxLeafTriangles: 2048,
      onFile: async (file, bytes) => void files.set(file, bytes),
    },
    { logger: quietLogger },
  );
  /** A triangle as its corners' coordinates, turned to start at the smallest: the same whatever the numbering. */
  const key = (positions: ArrayLike<number>, corners: number[]) => {
    const points = corners.map((v) => `${positions[v * 3]},${positions[v * 3 + 1]},${positions[v * 3 + 2]}`);
    const first = points.indexOf([...points].sort()[0]);
    return [0, 1, 2].map((k) => points[(first + k) % 3]).join(' ');
  };
  const source = new Set<string>();
  for (let t = 0; t < ring.indices.length; t += 3)
    source.add(key(ring.positions, [ring.indices[t], ring.indices[t + 1], ring.indices[t + 2]]));
  const leaves: string[] = [];
  for (const { tile } of listTiles(summary.tileset.root)) {
    if (tile.children) continue;
    const glb = files.get(tile.content.uri)!;
    assert.deepEqual(await validationErrors(glb), [], `${tile.content.uri} validates`);
    const leaf = (await readGlb(glb)).getRoot().listMeshes()[0].listPrimitives()[0];
    const positions = leaf.getAttribute('POSITION')!.getArray()!;
    const indices = leaf.getIndices()!.getArray()!;
    for (let t = 0; t < indices.length; t += 3)
      leaves.push(key(positions, [indices[t], indices[t + 1], indices[t + 2]]));
  }
  assert.ok(summary.tileCount > 4, `${summary.tileCount} tiles`);
  assert.equal(leaves.length, source.size, 'every triangle once');
  assert.deepEqual(
    new Set(leaves),
    source,
    'the leaves hold the source’s triangles, bit for bit and wound alike',
  );
});

/** The byte offset within the GLB's binary chunk of every buffer view the tile's property tables use. */
function metadataViewOffsets(glb: Uint8Array): number[] {
  const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
  const json = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + view.getUint32(12, true)))) as {
    bufferViews: { buffer: number; byteOffset?: number }[];
    extensions: {
      EXT_structural_metadata: {
        propertyTables: { properties: Record<string, Record<string, number | string>> }[];
      };
    };
  };
  const used = json.extensions.EXT_structural_metadata.propertyTables.flatMap((table) =>
    Object.values(table.properties).flatMap((property) =>
      (['values', 'arrayOffsets', 'stringOffsets'] as const)
        .map((key) => property[key])
        .filter((index): index is number => typeof index === 'number'),
    ),
  );
  return used.map((index) => {
    assert.equal(json.bufferViews[index].buffer, 0, 'metadata lies in the binary chunk');
    return json.bufferViews[index].byteOffset ?? 0;
  });
}

void test('every tile of a multi-part tileset aligns its metadata to 8 bytes, and no tile strays over 8× its children', async () => {
  const document = spheresAndTerrain(100_000);
  const parts = extractParts(document, { modelId: 'spheres' }, { logger: quietLogger });
  const soup = collectTriangles(document, { logger: quietLogger });
  const files = new Map<string, Uint8Array>();
  const summary = await makeTiles(
    soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      // Small leaves: a tree three levels deep from 100,000 triangles, as a big model's is from millions.
      maxLeafTriangles: 1_024,
      onFile: async (file, bytes) => void files.set(file, bytes),
    },
    { logger: quietLogger },
  );
  const tiles = listTiles(summary.tileset.root);
  assert.ok(Math.max(...tiles.map(({ depth }) => depth)) >= 3, 'the tree has levels over levels');
  let checkedGrowth = 0;
  for (const { tile } of tiles) {
    const glb = files.get(tile.content.uri)!;
    const offsets = metadataViewOffsets(glb);
    // group_id and name: values and string offsets each.
    assert.equal(offsets.length, 4, `${tile.content.uri} has its table of parts`);
    for (const offset of offsets)
      assert.equal(offset % 8, 0, `${tile.content.uri}: a metadata view at ${offset}`);
    const groups = tileGroupIds(await readGlb(glb));
    assert.ok(
      groups.every((id) => parts.some((part) => part.group_id === id)),
      `${tile.content.uri}: its parts read back whole`,
    );
    const children = tile.children ?? [];
    const childError = Math.max(0, ...children.map((child) => child.geometricError));
    if (childError > 0) {
      checkedGrowth++;
      assert.ok(
        tile.geometricError <= 8 * childError * (1 + 1e-9),
        `${tile.content.uri}: error ${tile.geometricError} against its children's ${childError}`,
      );
    }
  }
  assert.ok(checkedGrowth > 1, 'tiles over inner tiles were checked');
  assert.deepEqual(
    await validationErrors(files.get(summary.tileset.root.content.uri)!),
    [],
    'the root validates',
  );
});
