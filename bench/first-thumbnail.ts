// A tiled model's first thumbnail, drawn at conversion from a cut through its tile tree: how much of the model the
// cut holds, how the picture covers what LOD 0's covers (the silhouettes' intersection over union, both drawn with
// LOD 0's camera), and what the tiles and the render cost. Generated OBJs of N boxes, each a size of its own
// (distinct: the simplifier merges them away in inner tiles) or one of 50 (repeated: too small to simplify), tiled
// above the service's 500,000-triangle threshold, converted in this process one after the other.
// Run: npx tsx bench/first-thumbnail.ts [groups=100000]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { glbTriangleCount } from '../src/pipeline/tiles/glb-triangle-count.ts';
import { renderThumbnailDetailed } from '../src/render/render-thumbnail.ts';
import { manyPartsObj } from '../test/fixtures/many-parts-obj.ts';
import { quietLogger } from '../test/pipeline/documents.ts';
import { decodeRgba, iou, silhouette } from '../test/render/silhouette.ts';

const groups = Number(process.argv[2] ?? 100_000);
const TILING_THRESHOLD = 500_000;

console.log(
  '| boxes | kind | conversion s | tiles s | cut triangles | of the model | render s | IoU with LOD 0 |',
);
console.log(
  '| ----: | ---- | -----------: | ------: | ------------: | -----------: | -------: | -------------: |',
);
for (const kind of ['distinct', 'repeated'] as const) {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-first-thumbnail-'));
  try {
    const file = path.join(dir, 'model.obj');
    await writeFile(file, manyPartsObj({ groups, kind, shapes: 50 }));
    let tilesStarted = 0;
    let tilesEnded = 0;
    const started = performance.now();
    const result = await convertModel({
      modelId: 'bench',
      source: { file, dir, format: 'obj' },
      logger: quietLogger,
      compressLods: 'meshopt',
      onProgress: (_, stage) => {
        if (stage === 'tiles' && tilesStarted === 0) tilesStarted = performance.now();
        if (stage === 'write') tilesEnded = performance.now();
      },
      tiles: { aboveTriangles: TILING_THRESHOLD, onFile: async () => {} },
    });
    const converted = performance.now();
    if (!result.tilesetCutGlb) throw new Error(`${groups} boxes were not tiled`);
    const lod0 = await renderThumbnailDetailed(result.lods[0].glb);
    const renderStarted = performance.now();
    const cut = await renderThumbnailDetailed(result.tilesetCutGlb, { camera: lod0.camera });
    const rendered = performance.now();
    const overlap = iou(
      silhouette((await decodeRgba(lod0.png)).data),
      silhouette((await decodeRgba(cut.png)).data),
    );
    const triangles = glbTriangleCount(result.tilesetCutGlb);
    console.log(
      `| ${groups.toLocaleString('en-US')} | ${kind} | ${((converted - started) / 1000).toFixed(1)} | ` +
        `${((tilesEnded - tilesStarted) / 1000).toFixed(1)} | ${triangles.toLocaleString('en-US')} | ` +
        `${((100 * triangles) / result.triangle_count).toFixed(0)} % | ` +
        `${((rendered - renderStarted) / 1000).toFixed(2)} | ` +
        `${overlap.toFixed(3)} |`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
