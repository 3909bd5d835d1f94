// A level that removes nothing is not written again (src/pipeline/lods/keep-smaller-levels.ts `writesAsLevelBefore`):
// LOD 2 of parts each too small to simplify would be LOD 1's file byte for byte, so LOD 1's file is judged in its
// place. Checked here: that premise on written bytes, that makeLods tells such a level, and that a conversion
// writes it once and answers the levels it answered when it wrote it twice. LOD 1 of such a model of many parts is
// written from the batched copy LOD 0 was written from, as batching it again would write it.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Logger } from '@gltf-transform/core';
import { MeshoptSimplifier } from 'meshoptimizer';
import { createNodeIO } from '../../src/gltf/create-io.ts';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { BATCHED_CHILDREN } from '../../src/pipeline/lods/retired-part-nodes.ts';
import { writesAsLevelBefore } from '../../src/pipeline/lods/keep-smaller-levels.ts';
import { makeLods } from '../../src/pipeline/lods/make-lods.ts';
import type { LodDocument } from '../../src/pipeline/lods/make-lods.ts';
import { levelSource, writeLevel, writeLevelFrom } from '../../src/pipeline/lods/write-level.ts';
import { manyPartsObj } from '../fixtures/many-parts-obj.ts';
import { addPartNode, addSphere, emptyDocument, quietLogger, readGlb, tempDir } from './documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** A document of `parts` nodes, each its own sphere of `segments` × 4 (under 64 triangles stays whole). */
function sphereRow(parts: number, segments: number) {
  const document = emptyDocument();
  for (let i = 0; i < parts; i++)
    addPartNode(document, addSphere(document, segments, 4, 0.4, `Sphere ${i}`), i);
  return document;
}

/** LOD 1 and LOD 2 of `document`, each with the bytes it is written as (meshopt, no texture ladder). */
async function levels(document: ReturnType<typeof emptyDocument>): Promise<[LodDocument, Uint8Array][]> {
  const io = await createNodeIO();
  const found: [LodDocument, Uint8Array][] = [];
  for await (const lod of makeLods(document, { simplifier: MeshoptSimplifier }, { logger: quietLogger })) {
    const options = { compression: 'meshopt', textures: 'source', last: false, cache: new Map() } as const;
    found.push([
      lod,
      await writeLevel(io, lod.document, { ...options, level: lod.level }, { logger: quietLogger }),
    ]);
  }
  return found;
}

/** Converts OBJ text or GLB bytes with meshopt levels, recording the debug lines that start with `prefix`. */
async function convertLogging(
  model: string | Uint8Array,
  prefix: string,
  options: Partial<Parameters<typeof convertModel>[0]> = {},
): Promise<{ result: Awaited<ReturnType<typeof convertModel>>; logged: string[] }> {
  const format = typeof model === 'string' ? 'obj' : 'glb';
  const file = path.join(scratch.dir, `${prefix.replace(/\W+/g, '-')}.${format}`);
  await writeFile(file, model);
  const logged: string[] = [];
  const logger = new Logger(Logger.Verbosity.DEBUG);
  logger.debug = (text: string) => void (text.startsWith(prefix) && logged.push(text));
  logger.info = () => {};
  const source = { file, dir: scratch.dir, format } as const;
  const result = await convertModel({
    modelId: 'parts',
    source,
    logger,
    compressLods: 'meshopt',
    ...options,
  });
  return { result, logged };
}

void describe('a level that removes nothing', () => {
  void test('LOD 2 of parts too small to simplify removes nothing and writes as LOD 1 did, byte for byte', async () => {
    const [[lod1, bytes1], [lod2, bytes2]] = await levels(sphereRow(80, 6));
    assert.equal(lod1!.removed, false);
    assert.equal(lod2!.removed, false);
    assert.ok(writesAsLevelBefore(lod2!, 'source'));
    assert.ok(writesAsLevelBefore(lod2!, 'webp'), 'no texture to make smaller');
    assert.deepEqual(bytes2, bytes1);
  });

  void test('a level that simplifies a part is one that removed something, and is written', async () => {
    const [[lod1], [lod2]] = await levels(sphereRow(3, 48));
    assert.equal(lod1!.removed, true);
    assert.equal(lod2!.removed, true);
    assert.equal(writesAsLevelBefore(lod2!, 'source'), false);
  });

  void test('LOD 1 is always written: it is quantized where LOD 0 is not', async () => {
    const [[lod1]] = await levels(sphereRow(4, 6));
    assert.equal(lod1!.removed, false);
    assert.equal(writesAsLevelBefore(lod1!, 'source'), false);
  });

  void test("LOD 1 of parts too small to simplify is written from LOD 0's batched copy, byte for byte", async () => {
    const document = sphereRow(80, 6);
    const io = await createNodeIO();
    const context = { logger: quietLogger };
    const options = { compression: 'meshopt', textures: 'source', last: false, cache: new Map() } as const;
    const source = levelSource(document, {}, context);
    assert.notEqual(source, document, '80 parts are batched into a copy');
    const lod0 = await writeLevelFrom(
      io,
      source,
      document,
      { ...options, level: 0, keepSource: true },
      context,
    );
    assert.deepEqual(lod0, await writeLevel(io, document, { ...options, level: 0 }, context));
    // Left as it was by LOD 0: quantized now, it gives the file the level written on its own gives.
    const lod1 = await writeLevelFrom(io, source, document, { ...options, level: 1 }, context);
    assert.deepEqual(lod1, await writeLevel(io, document, { ...options, level: 1 }, context));
    assert.ok(lod1.byteLength < lod0.byteLength, 'LOD 1 is quantized');
  });

  void test('a conversion of many parts too small to simplify batches them once for LOD 0 and 1', async () => {
    const obj = manyPartsObj({ groups: 300, kind: 'distinct' });
    const { result, logged: batched } = await convertLogging(obj, 'batch-parts:', {
      levelByteShares: [1, 1],
    });
    assert.equal(batched.length, 1, batched.join('\n'));
    const [lod0, lod1] = result.lods;
    assert.equal(lod1!.reduced, true, 'LOD 1 is kept: quantized, it is smaller');
    assert.equal(lod1!.triangle_count, lod0!.triangle_count);
  });

  void test('parts under an object are listed on it, so their batched copy is kept for LOD 1 as well', async () => {
    // As an IFC's elements sit under their storey.
    const document = sphereRow(80, 6);
    const scene = document.getRoot().listScenes()[0]!;
    const storey = document.createNode('Storey').setExtras({ group_id: 'storey' });
    for (const node of scene.listChildren()) storey.addChild(node);
    scene.addChild(storey);
    const glb = await (await createNodeIO()).writeBinary(document);
    const { result, logged: batched } = await convertLogging(glb, 'batch-parts:');
    assert.equal(batched.length, 1, batched.join('\n'));
    assert.equal(result.lods[1]!.triangle_count, result.lods[0]!.triangle_count);
    for (const lod of result.lods.slice(0, 2)) {
      const storeyNode = (await readGlb(lod.glb))
        .getRoot()
        .listNodes()
        .find((node) => node.getName() === 'Storey');
      assert.equal((storeyNode?.getExtras()[BATCHED_CHILDREN] as unknown[]).length, 80, `LOD ${lod.level}`);
    }
  });

  void test('parts that stay nodes in the batched copy (holding other nodes) are batched again for LOD 1', async () => {
    // Keeping a copy of every node would cost more than batching again.
    const document = sphereRow(80, 6);
    for (const node of document.getRoot().listScenes()[0]!.listChildren()) {
      const inner = addSphere(document, 6, 4, 0.1, `${node.getName()} inner`);
      node.addChild(
        document
          .createNode(`${node.getName()} inner`)
          .setMesh(inner)
          .setExtras({ group_id: `${node.getName()}-in` }),
      );
    }
    const glb = await (await createNodeIO()).writeBinary(document);
    const { result, logged: batched } = await convertLogging(glb, 'batch-parts:');
    assert.equal(batched.length, 2, batched.join('\n'));
    assert.equal(result.lods[1]!.triangle_count, result.lods[0]!.triangle_count);
  });

  void test('a conversion writes it once, and answers the levels it did when it wrote it twice', async () => {
    const obj = manyPartsObj({ groups: 300, kind: 'repeated', shapes: 10 });
    const { result, logged: quantized } = await convertLogging(obj, 'compress-lod: meshopt, quantized');
    assert.equal(quantized.length, 1, 'one quantized level written: LOD 1');
    const [lod0, lod1, lod2] = result.lods;
    assert.equal(lod2!.reduced, false, 'LOD 2 is the level before it again');
    assert.equal(lod2!.triangle_count, lod0!.triangle_count);
    // LOD 2's file would be LOD 1's, not smaller than it: LOD 2 stands on whichever level LOD 1 stands on.
    assert.equal(lod2!.glb, lod1!.glb);
  });
});
