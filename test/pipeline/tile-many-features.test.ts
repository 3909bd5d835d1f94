// A tile holding more parts than 16-bit feature ids tell apart (src/pipeline/tiles/tile-document.ts): a coarse tile
// of a model of 100,000 small parts holds them all. Its feature ids are then 32-bit floats, as EXT_mesh_features
// allows, each still resolving to its own part; up to 65,536 parts they stay 16-bit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { featureParts } from '../../src/render/scene/feature-group-ids.ts';
import { triangleRowTile } from '../helpers/triangle-row-tile.ts';
import { readGlb } from './documents.ts';

/** The tile written and read back: its feature id array and each triangle's part's group id. */
async function writtenTile(parts: number): Promise<{ features: ArrayLike<number>; groupIds: string[] }> {
  const document = await readGlb(await triangleRowTile(parts));
  const [primitive] = document.getRoot().listMeshes()[0]!.listPrimitives();
  const found = featureParts(primitive!)!;
  const indices = primitive!.getIndices()!.getArray()!;
  const groupIds = Array.from({ length: indices.length / 3 }, (_, triangle) => {
    const feature = found.vertexFeatures[indices[triangle * 3]!]!;
    return found.groupIds[feature]!;
  });
  return { features: primitive!.getAttribute('_FEATURE_ID_0')!.getArray()!, groupIds };
}

void test('a tile of 70,000 parts carries float feature ids, each resolving to its own part', async () => {
  const { features, groupIds } = await writtenTile(70_000);
  assert.ok(features instanceof Float32Array, 'more than 16 bits of feature ids');
  assert.equal(groupIds.length, 70_000);
  groupIds.forEach((groupId, triangle) => assert.equal(groupId, `g${triangle}`));
});

void test('a tile of 65,536 parts keeps 16-bit feature ids', async () => {
  const { features, groupIds } = await writtenTile(65_536);
  assert.ok(features instanceof Uint16Array);
  assert.equal(groupIds[65_535], 'g65535');
});
