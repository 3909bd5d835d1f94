// The GLB a tiled model's thumbnail is drawn from, read from a stored tileset: the cut through the tile tree that
// fits the triangle budget, only the tiles it needs read, and each cut (the quantized root alone, or the
// full-resolution leaves) drawing the same model in the same bound colours.
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MeshoptSimplifier } from 'meshoptimizer';
import { tilesetThumbnailGlb } from '../../src/catalog/thumbnails/tileset-thumbnail.ts';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { extractParts } from '../../src/pipeline/extract-parts.ts';
import { makeTiles } from '../../src/pipeline/tiles/make-tiles.ts';
import type { TileJson } from '../../src/pipeline/tiles/tileset-json.ts';
import { collectTriangles } from '../../src/pipeline/tiles/triangle-soup.ts';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import { createFileStore } from '../../src/storage/file-store.ts';
import type { BlobStore } from '../../src/storage/blob-store.ts';
import { emptyDocument, quietLogger } from '../pipeline/documents.ts';
import { torusPrimitive } from '../pipeline/torus.ts';
import { decodeRgba, iou, silhouette } from '../render/silhouette.ts';

const FOLDER = 'models/rings/tileset-0123456789abcdef/';
const TRIANGLES = 2 * 160 * 120 * 2;

/** Share of a PNG's pixels that are clearly red. */
async function redShare(png: Uint8Array): Promise<number> {
  const { data, width, height } = await decodeRgba(png);
  let red = 0;
  for (let i = 0; i < data.length; i += 4)
    if (data[i + 3] >= 128 && data[i] > 80 && data[i] - data[i + 1] > 50 && data[i] - data[i + 2] > 50) red++;
  return red / (width * height);
}

void describe('the tiles a tiled thumbnail is drawn from', () => {
  let dir: string;
  let blobs: BlobStore;
  let root: TileJson;
  let reads: string[];
  let redGroup: string;

  before(async () => {
    // Two rings of 38,400 triangles, split into leaves of at most 8,192: a root, inner tiles and leaves.
    const document = emptyDocument();
    for (let part = 0; part < 2; part++) {
      const primitive = torusPrimitive(document, 160, 120);
      document
        .getRoot()
        .listScenes()[0]
        .addChild(
          document
            .createNode(`Ring ${part}`)
            .setTranslation([part * 3, 0, 0])
            .setMesh(document.createMesh().addPrimitive(primitive)),
        );
    }
    const parts = extractParts(document, { modelId: 'rings' }, { logger: quietLogger });
    redGroup = parts[0].group_id;
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'tileset-thumbnail-'));
    const store = createFileStore(dir);
    const made = await makeTiles(
      collectTriangles(document, { logger: quietLogger }),
      {
        simplifier: MeshoptSimplifier,
        io: await createNodeIO(),
        maxLeafTriangles: 8192,
        onFile: async (file, bytes) => void (await store.putBytes(`${FOLDER}${file}`, bytes)),
      },
      { logger: quietLogger },
    );
    root = made.tileset.root;
    assert.ok(
      root.children?.some((child) => (child.children?.length ?? 0) > 0),
      'three levels of tiles',
    );
    reads = [];
    blobs = { ...store, read: (key) => (reads.push(key), store.read(key)) };
  });
  after(() => fs.rm(dir, { recursive: true, force: true }));

  const render = (glb: Uint8Array) =>
    renderThumbnail(glb, { materialOverrides: new Map([[redGroup, { color: [1, 0, 0], alpha: 1 }]]) });

  void it('takes every leaf under a budget of the whole model, the root alone under one of a single tile', async () => {
    reads.length = 0;
    const whole = await tilesetThumbnailGlb(blobs, `${FOLDER}tileset.json`, TRIANGLES);
    assert.equal(whole.triangles, TRIANGLES, 'the leaves hold every triangle');
    assert.ok(whole.tiles > 2);

    reads.length = 0;
    const coarse = await tilesetThumbnailGlb(blobs, `${FOLDER}tileset.json`, 1);
    assert.equal(coarse.tiles, 1);
    assert.ok(coarse.triangles < TRIANGLES / 2, `the root holds ${coarse.triangles} triangles`);
    // The tileset, the root and its children weighed: nothing deeper.
    const expected = [root, ...root.children!].map((tile) => `${FOLDER}${tile.content.uri}`);
    assert.deepEqual(reads, [`${FOLDER}tileset.json`, ...expected]);

    // The quantized root (its grid undone by its node's transform) draws the same rings, red where bound.
    const [wholePng, coarsePng] = [await render(whole.glb), await render(coarse.glb)];
    const overlap = iou(
      silhouette((await decodeRgba(wholePng)).data),
      silhouette((await decodeRgba(coarsePng)).data),
    );
    assert.ok(overlap > 0.95, `silhouette IoU ${overlap.toFixed(3)}`);
    const [wholeRed, coarseRed] = [await redShare(wholePng), await redShare(coarsePng)];
    assert.ok(wholeRed > 0.02 && Math.abs(wholeRed - coarseRed) < 0.01, `${wholeRed} vs ${coarseRed}`);
  });

  void it('refines while the cut stays within the budget', async () => {
    const rootOnly = await tilesetThumbnailGlb(blobs, `${FOLDER}tileset.json`, 1);
    const budget = Math.round(TRIANGLES * 0.6);
    const middle = await tilesetThumbnailGlb(blobs, `${FOLDER}tileset.json`, budget);
    assert.ok(middle.triangles <= budget, `${middle.triangles} of ${budget}`);
    assert.ok(middle.triangles > rootOnly.triangles && middle.tiles > 1, `${middle.tiles} tiles`);
  });

  void it('refuses a tile outside the tileset folder', async () => {
    await blobs.putBytes(
      'models/rings/tileset-ffffffffffffffff/tileset.json',
      new TextEncoder().encode(
        JSON.stringify({
          ...{ asset: { version: '1.1' } },
          root: { ...root, content: { uri: '../../x.glb' } },
        }),
      ),
    );
    await assert.rejects(
      tilesetThumbnailGlb(blobs, 'models/rings/tileset-ffffffffffffffff/tileset.json'),
      /outside its folder/,
    );
  });
});
