// The tiles are made from the tiling plan's soup alone: the document's graph, a node, mesh and accessors a part,
// must be out of reach while they are written (a graph of 100,000 parts is 300 MiB).
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { Document } from '@gltf-transform/core';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { importObj } from '../../src/pipeline/import/obj/import-obj.ts';
import { collected } from '../helpers/collected.ts';
import { manyPartsObj } from '../fixtures/many-parts-obj.ts';
import { quietLogger } from './documents.ts';

void test("the document's graph is collected before the tiles are written", async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-tiles-graph-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'boxes.obj');
  await writeFile(file, manyPartsObj({ groups: 500, kind: 'distinct' }));

  let imported: WeakRef<Document> | undefined;
  const read = importObj.read;
  t.after(() => void (importObj.read = read));
  importObj.read = async (source, context) => {
    const result = await read(source, context);
    imported = new WeakRef(result.document);
    return result;
  };
  let graphGone: boolean | undefined;
  const result = await convertModel({
    modelId: 'graph',
    source: { file, dir, format: 'obj' },
    logger: quietLogger,
    compressLods: 'meshopt',
    tiles: {
      aboveTriangles: 0,
      onFile: async () => {
        graphGone ??= await collected(imported!);
      },
    },
  });
  assert.ok(result.tileset && result.tileset.tile_count > 0, 'the boxes are tiled');
  assert.equal(graphGone, true, 'no document was reachable from the tiles');
});
