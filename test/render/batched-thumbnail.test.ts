// A batched level's thumbnail (src/render/render-thumbnail.ts): drawn from its batched primitives when no colour is
// bound (the same pixels as a node per part, without making those nodes), and with only the bound parts split out
// when some are (src/render/scene/split-feature-parts.ts `only`), so the bound part alone takes its colour.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import { splitFeatureParts } from '../../src/render/scene/split-feature-parts.ts';
import { batchedSphereRow, readGlb } from '../pipeline/documents.ts';
import { decodeRgba } from './silhouette.ts';

const PARTS = 80;
const SIZE = { width: 512, height: 512, view: { azimuth: 0, elevation: 0 } };

/** A batched row of spheres as GLB, and the same level with its parts split back into nodes. */
async function levels(): Promise<{ batched: Uint8Array; split: Uint8Array }> {
  const io = await createNodeIO();
  const { document } = batchedSphereRow(PARTS, 4);
  const batched = await io.writeBinary(document);
  const copy = await io.readBinary(batched);
  assert.equal(splitFeatureParts(copy), PARTS);
  return { batched, split: await io.writeBinary(copy) };
}

/** How many pixels of a PNG are green rather than grey or red. */
async function greenPixels(png: Uint8Array): Promise<number> {
  const { data } = await decodeRgba(png);
  let count = 0;
  for (let at = 0; at < data.length; at += 4)
    if (data[at + 3]! > 0 && data[at + 1]! > data[at]! + 40 && data[at + 1]! > data[at + 2]! + 40) count++;
  return count;
}

void describe('the thumbnail of a batched level', () => {
  void test('with no colour bound, the batched primitives draw what a node per part draws, pixel for pixel', async () => {
    const { batched, split } = await levels();
    const fromBatched = await decodeRgba(await renderThumbnail(batched, SIZE));
    const fromSplit = await decodeRgba(await renderThumbnail(split, SIZE));
    assert.ok(
      fromBatched.data.some((value, at) => at % 4 === 3 && value > 0),
      'something is drawn',
    );
    assert.deepEqual(fromBatched.data, fromSplit.data);
  });

  void test('only the parts named become nodes; the other triangles stay on the batched node', async () => {
    const { batched } = await levels();
    const document = await readGlb(batched);
    const trianglesOf = (primitives: { getIndices(): { getCount(): number } | null }[]) =>
      primitives.reduce((sum, primitive) => sum + primitive.getIndices()!.getCount() / 3, 0);
    const before = trianglesOf(
      document
        .getRoot()
        .listMeshes()
        .flatMap((mesh) => mesh.listPrimitives()),
    );
    assert.equal(splitFeatureParts(document, new Set(['p3', 'p40', 'not-a-part'])), 2);
    const parts = document
      .getRoot()
      .listNodes()
      .filter((node) => node.getExtras().group_id !== undefined);
    assert.deepEqual(
      parts.map((node) => node.getExtras().group_id),
      ['p3', 'p40'],
    );
    const primitives = document
      .getRoot()
      .listMeshes()
      .flatMap((mesh) => mesh.listPrimitives());
    assert.equal(trianglesOf(primitives), before, 'every triangle is still drawn once');
    assert.ok(
      primitives.every((primitive) => primitive.getAttribute('_FEATURE_ID_0') === null),
      'no feature ids are left to resolve',
    );
  });

  void test('a colour bound to one part paints that part alone, as it does on a node per part', async () => {
    const { batched, split } = await levels();
    const green = new Map([['p40', { color: [0, 1, 0] as [number, number, number], alpha: 1 }]]);
    const paintedPng = await renderThumbnail(batched, { ...SIZE, materialOverrides: green });
    const fromSplit = await decodeRgba(await renderThumbnail(split, { ...SIZE, materialOverrides: green }));
    assert.deepEqual((await decodeRgba(paintedPng)).data, fromSplit.data);
    const painted = await greenPixels(paintedPng);
    const all = new Map(
      Array.from({ length: PARTS }, (_, i) => [
        `p${i}`,
        { color: [0, 1, 0] as [number, number, number], alpha: 1 },
      ]),
    );
    const everyPart = await greenPixels(await renderThumbnail(batched, { ...SIZE, materialOverrides: all }));
    assert.ok(painted > 0, 'the bound part is green');
    assert.ok(painted < everyPart / 20, `${painted} green pixels of ${everyPart} with every part bound`);
  });
});
