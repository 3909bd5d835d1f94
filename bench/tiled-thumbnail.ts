// A tiled model's thumbnail refreshed from its stored tiles (catalog/thumbnails/tileset-thumbnail.ts), as after a
// material is bound: the cut read from the tileset, laid out as one document and drawn with 1,000 parts painted.
// One conversion of a generated OBJ of N boxes (tiled: 12 triangles a box, above the 500,000-triangle threshold
// from 41,667 boxes), its tiles kept in memory, then the refresh three times in one process.
// Run: npx tsx bench/tiled-thumbnail.ts [groups=100000] [--distinct]
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { tilesetThumbnailGlb } from '../src/catalog/thumbnails/tileset-thumbnail.ts';
import { convertModel } from '../src/pipeline/convert-model.ts';
import { renderThumbnail } from '../src/render/render-thumbnail.ts';
import type { MaterialOverride } from '../src/render/render-thumbnail.ts';
import type { BlobStore } from '../src/storage/blob-store.ts';
import { manyPartsObj } from '../test/fixtures/many-parts-obj.ts';
import { quietLogger } from '../test/pipeline/documents.ts';

const groups = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 100_000);
const kind = process.argv.includes('--distinct') ? 'distinct' : 'repeated';
const RUNS = 3;
const PAINTED = 1_000;

const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-tiled-thumbnail-'));
try {
  const file = path.join(dir, 'model.obj');
  await writeFile(file, manyPartsObj({ groups, kind, shapes: 50 }));
  const files = new Map<string, Uint8Array>();
  const result = await convertModel({
    modelId: 'bench',
    source: { file, dir, format: 'obj' },
    logger: quietLogger,
    compressLods: 'meshopt',
    tiles: { aboveTriangles: 500_000, onFile: async (name, bytes) => void files.set(`t/${name}`, bytes) },
  });
  if (!files.has('t/tileset.json')) throw new Error(`${groups} boxes were not tiled`);
  // Only `read` is called: the tileset and the tiles of the cut.
  const blobs = {
    read: async (key: string) => Readable.from([Buffer.from(files.get(key)!)]),
  } as unknown as BlobStore;
  const red: MaterialOverride = { color: [0.8, 0.1, 0.1], alpha: 1 };
  const materialOverrides = new Map(result.parts.slice(0, PAINTED).map((part) => [part.group_id, red]));
  process.stdout.write(
    '| run | cut tiles | cut triangles | laid out s | drawn s | GLB MiB |\n|---:|---:|---:|---:|---:|---:|\n',
  );
  for (let run = 1; run <= RUNS; run++) {
    let start = performance.now();
    const source = await tilesetThumbnailGlb(blobs, 't/tileset.json');
    const laidOut = (performance.now() - start) / 1000;
    start = performance.now();
    await renderThumbnail(source.glb, { materialOverrides });
    const drawn = (performance.now() - start) / 1000;
    const mib = (source.glb.byteLength / 2 ** 20).toFixed(1);
    process.stdout.write(
      `| ${run} | ${source.tiles} | ${source.triangles.toLocaleString('en')} | ${laidOut.toFixed(1)} | ${drawn.toFixed(1)} | ${mib} |\n`,
    );
  }
  process.stdout.write(`peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
