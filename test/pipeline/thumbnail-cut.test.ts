// The cut a tiled model's first thumbnail is drawn from: the one a later refresh draws from its stored tiles, at
// full resolution where the budget allows, and covering what LOD 0 covers, boxes the simplifier merges away in the
// inner tiles included (BENCHMARKS.md, "The first thumbnail of a tiled model").
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { glbTriangleCount } from '../../src/pipeline/tiles/glb-triangle-count.ts';
import { tileDepth } from '../../src/pipeline/tiles/make-tiles.ts';
import type { TilesetJson } from '../../src/pipeline/tiles/tileset-json.ts';
import type { ConversionResult } from '../../src/pipeline/types.ts';
import { renderThumbnailDetailed } from '../../src/render/render-thumbnail.ts';
import { tileCutGlb } from '../../src/render/scene/tile-cut-glb.ts';
import { manyPartsObj } from '../fixtures/many-parts-obj.ts';
import { decodeRgba, iou, silhouette } from '../render/silhouette.ts';
import { quietLogger } from './documents.ts';

/** Boxes of 12 triangles: 120,000 triangles, more than a leaf tile holds, so the tree has a root above leaves. */
const BOXES = 10_000;

let dir: string;
let result: ConversionResult;
const files = new Map<string, Uint8Array>();

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'vitrine-thumbnail-cut-'));
  const file = path.join(dir, 'boxes.obj');
  await writeFile(file, manyPartsObj({ groups: BOXES, kind: 'distinct' }));
  result = await convertModel({
    modelId: 'cut',
    source: { file, dir, format: 'obj' },
    logger: quietLogger,
    compressLods: 'meshopt',
    tiles: { aboveTriangles: 0, onFile: async (name, bytes) => void files.set(name, bytes) },
  });
});

after(() => rm(dir, { recursive: true, force: true }));

void test("the conversion's cut is the one drawn again from the stored tiles, the leaves whole", async () => {
  const tileset = JSON.parse(new TextDecoder().decode(files.get('tileset.json'))) as TilesetJson;
  assert.ok(tileset.root.children?.length, 'the boxes tile into a root above leaves');
  const refreshed = await tileCutGlb(tileset.root, async (uri) => files.get(uri));
  const drawn = glbTriangleCount(result.tilesetCutGlb!);
  assert.equal(drawn, refreshed.triangles, 'the same tiles as a refresh');
  assert.equal(drawn, result.triangle_count, 'every triangle: the leaves fit the budget');
  assert.deepEqual(result.tilesetCutGlb, refreshed.glb, 'byte for byte');
});

void test('the thumbnail of the cut covers what LOD 0 covers', async () => {
  const whole = await renderThumbnailDetailed(result.lods[0].glb);
  const cut = await renderThumbnailDetailed(result.tilesetCutGlb!, { camera: whole.camera });
  const overlap = iou(
    silhouette((await decodeRgba(whole.png)).data),
    silhouette((await decodeRgba(cut.png)).data),
  );
  assert.ok(overlap > 0.97, `the cut's silhouette overlaps LOD 0's by ${overlap.toFixed(3)}`);
});

void test('a tile not at hand is not refined into, and a root not at hand is refused', async () => {
  const tileset = JSON.parse(new TextDecoder().decode(files.get('tileset.json'))) as TilesetJson;
  const rootUri = tileset.root.content.uri;
  // The leaves left out, as the conversion leaves out tiles deeper than it keeps: the root alone is drawn.
  const rootOnly = await tileCutGlb(tileset.root, async (uri) =>
    uri === rootUri ? files.get(uri) : undefined,
  );
  assert.equal(rootOnly.tiles, 1);
  assert.equal(rootOnly.triangles, glbTriangleCount(files.get(rootUri)!));
  await assert.rejects(
    tileCutGlb(tileset.root, async (uri) => (uri === rootUri ? undefined : files.get(uri))),
    /root tile tiles\/0\.glb cannot be read/,
  );
});

void test('the tiles kept for the cut are told by their depth under the root', () => {
  assert.equal(tileDepth('tiles/0.glb'), 0);
  assert.equal(tileDepth('tiles/0-7.glb'), 1);
  assert.equal(tileDepth('tiles/0-3-12.glb'), 2);
  assert.equal(tileDepth('tiles/0-3-1-0.glb'), 3);
  assert.equal(tileDepth('tileset.json'), undefined);
  assert.equal(tileDepth('tiles/1.glb'), undefined);
});
