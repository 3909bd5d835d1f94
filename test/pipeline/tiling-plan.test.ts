// The levels of detail simplified leaf by leaf of the tiler's tree, and the coarse leaves the tiler hands up from
// them: each keeps its leaf's border exactly (so inner tiles meet their neighbours without a crack), faces the same
// way, and a mesh drawn by two nodes is left to the tiler's own simplification.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Document, Mesh } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { makeLods } from '../../src/pipeline/lods/make-lods.ts';
import { TILESET_FILE, makeTiles } from '../../src/pipeline/tiles/make-tiles.ts';
import { listLeaves } from '../../src/pipeline/tiles/split-tree.ts';
import type { TileJson, TilesetJson } from '../../src/pipeline/tiles/tileset-json.ts';
import { coarseLeaves, planTiling } from '../../src/pipeline/tiles/tiling-plan.ts';
import type { CoarseLeaves, TilingPlan } from '../../src/pipeline/tiles/tiling-plan.ts';
import { emptyDocument, quietLogger, readGlb, validationErrors } from './documents.ts';
import { torusPrimitive } from './torus.ts';

const SPLIT = { maxLeafTriangles: 2_048, cutsPerLevel: 3 };

/** A torus mesh of `around × tube × 2` triangles. */
function torusMesh(document: Document, name: string, around: number, tube = around): Mesh {
  return document.createMesh(name).addPrimitive(torusPrimitive(document, around, tube));
}

/**
 * A plain ring, a mirrored one, one mesh drawn twice, and two small rings (fewer triangles than there are leaves,
 * one too small for the levels to simplify): 80,000 + 45,000 + 2 × 20,000 + 64 + 50 triangles.
 */
function rings(): Document {
  const document = emptyDocument();
  const scene = document.getRoot().listScenes()[0];
  scene.addChild(document.createNode('Plain').setMesh(torusMesh(document, 'Plain', 200)));
  scene.addChild(
    document
      .createNode('Mirrored')
      .setMesh(torusMesh(document, 'Mirrored', 150))
      .setTranslation([3, 0, 0])
      .setScale([-1, 1, 1]),
  );
  const shared = torusMesh(document, 'Shared', 100);
  scene.addChild(document.createNode('Shared A').setMesh(shared).setTranslation([0, 0, 3]));
  scene.addChild(document.createNode('Shared B').setMesh(shared).setTranslation([3, 0, 3]));
  scene.addChild(
    document
      .createNode('Small')
      .setMesh(torusMesh(document, 'Small', 8, 4))
      .setTranslation([6, 0, 0]),
  );
  scene.addChild(
    document
      .createNode('Tiny')
      .setMesh(torusMesh(document, 'Tiny', 5))
      .setTranslation([6, 0, 3]),
  );
  return document;
}

/** The plan of a document, its levels made in the plan's pieces, and the coarse leaves of LOD 2. */
async function planAndLevels(document: Document): Promise<{ plan: TilingPlan; coarse: CoarseLeaves }> {
  const plan = planTiling(document, SPLIT, { logger: quietLogger });
  let coarse: CoarseLeaves | undefined;
  for await (const lod of makeLods(
    document,
    { simplifier: MeshoptSimplifier, consumeSource: true, pieces: plan.pieces },
    { logger: quietLogger },
  ))
    if (lod.level === 2) coarse = coarseLeaves(plan, lod.piecesInLod0());
  return { plan, coarse: coarse! };
}

/** The directed edges used once in a list of triangles (three soup vertices each): its open border, by winding. */
function openEdges(corners: ArrayLike<number>): Set<string> {
  const edges = new Set<string>();
  for (let t = 0; t < corners.length; t += 3) {
    for (let corner = 0; corner < 3; corner++) {
      const [from, to] = [corners[t + corner], corners[t + ((corner + 1) % 3)]];
      if (edges.has(`${to} ${from}`)) edges.delete(`${to} ${from}`);
      else edges.add(`${from} ${to}`);
    }
  }
  return edges;
}

void test('each coarse leaf keeps its leaf’s border and winding; a mesh drawn twice is left to the tiler', async () => {
  const { plan, coarse } = await planAndLevels(rings());
  const { soup } = plan;
  assert.equal(plan.placements.length, 6);
  assert.equal(plan.pieces.size, 4, 'every ring but the shared mesh gets pieces');
  assert.ok(plan.leafCount > 64, `${plan.leafCount} leaves`);
  assert.deepEqual(
    [...plan.pieceLeaves.keys()].map((primitive) => primitive.getAttribute('POSITION')!.getCount()).sort(),
    [25, 32],
    'the small rings’ pieces are numbered on their own',
  );
  const sharedPlacements = plan.placements.filter((placement) =>
    placement.node.getName().startsWith('Shared'),
  );
  const sharedLeaves = new Set<number>();
  for (const { firstTriangle, triangles } of sharedPlacements)
    for (let t = firstTriangle; t < firstTriangle + triangles; t++) sharedLeaves.add(plan.leafOf[t]);

  const leaves = listLeaves(plan.tree);
  assert.equal(leaves.length, plan.leafCount);
  assert.ok(leaves.length > 30, `${leaves.length} leaves`);
  let coveredCount = 0;
  let [fullTriangles, coarseTriangles] = [0, 0];
  leaves.forEach((leaf, index) => {
    if (sharedLeaves.has(index)) {
      assert.equal(coarse.covered[index], 0, `leaf ${index} holds the shared mesh: not covered`);
      return;
    }
    assert.equal(coarse.covered[index], 1, `leaf ${index} is covered`);
    coveredCount++;
    const full = new Uint32Array(leaf.triangles.length * 3);
    leaf.triangles.forEach((triangle, at) =>
      full.set(soup.indices.subarray(triangle * 3, triangle * 3 + 3), at * 3),
    );
    const corners = coarse.corners.subarray(coarse.offsets[index] * 3, coarse.offsets[index + 1] * 3);
    assert.ok(
      corners.length > 0 && corners.length <= full.length,
      `leaf ${index}: ${corners.length / 3} coarse of ${leaf.triangles.length} triangles`,
    );
    fullTriangles += full.length / 3;
    coarseTriangles += corners.length / 3;
    // Equal directed open borders: not a crack against the neighbours, and turned the same way as the leaf.
    assert.deepEqual(
      [...openEdges(corners)].sort(),
      [...openEdges(full)].sort(),
      `leaf ${index} keeps its border`,
    );
    const leafVertices = new Set(full);
    assert.ok(
      corners.every((vertex) => leafVertices.has(vertex)),
      `leaf ${index}: only its own vertices`,
    );
    assert.ok(
      coarse.errors[index] >= 0 && coarse.errors[index] < 0.05,
      `leaf ${index} error ${coarse.errors[index]}`,
    );
  });
  assert.ok(coveredCount > sharedLeaves.size, `${coveredCount} leaves covered, ${sharedLeaves.size} not`);
  assert.ok(coarseTriangles < fullTriangles * 0.3, `${coarseTriangles} coarse of ${fullTriangles} triangles`);
});

/** The files of a tileset of a plan's soup, built with the given coarse leaves or none. */
async function tileFiles(plan: TilingPlan, coarse?: CoarseLeaves): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  await makeTiles(
    plan.soup,
    {
      simplifier: MeshoptSimplifier,
      io: await createNodeIO(),
      onFile: async (file, bytes) => void files.set(file, bytes),
      ...SPLIT,
      tree: plan.tree,
      coarseLeaves: coarse,
    },
    { logger: quietLogger },
  );
  return files;
}

/** Every tile of a tileset. */
function listTiles(tile: TileJson): TileJson[] {
  return [tile, ...(tile.children ?? []).flatMap(listTiles)];
}

void test('a tileset handed up from coarse leaves is valid, keeps every triangle and is simplified above them', async () => {
  const { plan, coarse } = await planAndLevels(rings());
  const files = await tileFiles(plan, coarse);
  const tileset = JSON.parse(new TextDecoder().decode(files.get(TILESET_FILE))) as TilesetJson;
  let leafTriangles = 0;
  for (const tile of listTiles(tileset.root)) {
    const glb = files.get(tile.content.uri)!;
    assert.deepEqual(await validationErrors(glb), [], `${tile.content.uri} validates`);
    const triangles = (await readGlb(glb))
      .getRoot()
      .listMeshes()
      .flatMap((mesh) => mesh.listPrimitives())
      .reduce((sum, primitive) => sum + primitive.getIndices()!.getCount() / 3, 0);
    if (!tile.children) leafTriangles += triangles;
    else assert.ok(triangles <= 2 * SPLIT.maxLeafTriangles, `${tile.content.uri}: ${triangles} triangles`);
    for (const child of tile.children ?? [])
      assert.ok(child.geometricError < tile.geometricError, 'error falls strictly with depth');
  }
  assert.equal(leafTriangles, plan.soup.indices.length / 3);
});

void test('a leaf whose coarse version is below its share (one of two) hands up itself simplified instead', async () => {
  const document = emptyDocument();
  document
    .getRoot()
    .listScenes()[0]
    .addChild(document.createNode('Ring').setMesh(torusMesh(document, 'Ring', 40)));
  const { plan, coarse } = await planAndLevels(document);
  const tileset = JSON.parse(
    new TextDecoder().decode((await tileFiles(plan, coarse)).get(TILESET_FILE)),
  ) as TilesetJson;
  assert.equal(tileset.root.children?.length, 2, 'the root has two leaves');
  assert.ok(coarse.covered.every((covered) => covered === 1));
  // Each leaf's LOD 2 holds about 15 % of it, below the half each may hand up: the root is as without them.
  const [withCoarse, without] = [await tileFiles(plan, coarse), await tileFiles(plan)];
  assert.deepEqual(withCoarse.get('tiles/0.glb'), without.get('tiles/0.glb'));
});
