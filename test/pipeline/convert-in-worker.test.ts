import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { convertInWorker, liveConversionWorkers } from '../../src/pipeline/convert-in-worker.ts';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { MODELS, quietLogger, readGlb, tempDir, validationErrors } from './documents.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

const truck: ImportSource = {
  file: path.join(MODELS, 'glb/CesiumMilkTruck.glb'),
  dir: path.join(MODELS, 'glb'),
  format: 'glb',
};

void test('converts in a worker thread, forwarding progress and handing back the LODs', async () => {
  const progress: number[] = [];
  const result = await convertInWorker({
    modelId: 'truck',
    source: truck,
    logger: quietLogger,
    timeoutMs: 120_000,
    maxMemoryMb: 1024,
    onProgress: (percent) => progress.push(percent),
  });
  assert.equal(result.lods.length, 3);
  for (const lod of result.lods) {
    assert.ok(lod.glb instanceof Uint8Array && lod.glb.byteLength > 0);
    assert.deepEqual(await validationErrors(lod.glb), []);
  }
  const lod2 = await readGlb(result.lods[2].glb);
  assert.equal(
    lod2
      .getRoot()
      .listNodes()
      .filter((node) => typeof node.getExtras().group_id === 'string').length,
    result.parts.length,
  );
  assert.equal(progress.at(-1), 100);
  assert.equal(liveConversionWorkers(), 0);
});

void test('a timeout terminates the worker and says so', async () => {
  await assert.rejects(
    convertInWorker({ modelId: 't', source: truck, logger: quietLogger, timeoutMs: 50, maxMemoryMb: 1024 }),
    { name: 'ConversionError', message: 'Conversion timed out after 0.05 s' },
  );
  assert.equal(liveConversionWorkers(), 0);
});

void test('bad input fails with the conversion error message', async () => {
  const empty = path.join(scratch.dir, 'empty.glb');
  await writeFile(empty, '');
  await assert.rejects(
    convertInWorker({
      modelId: 'e',
      source: { file: empty, dir: scratch.dir, format: 'glb' },
      logger: quietLogger,
      timeoutMs: 60_000,
      maxMemoryMb: 512,
    }),
    { name: 'ConversionError', message: 'The file is empty' },
  );
  assert.equal(liveConversionWorkers(), 0);
});

void test('aborting terminates the worker', async () => {
  const controller = new AbortController();
  const running = convertInWorker({
    modelId: 'a',
    source: truck,
    logger: quietLogger,
    timeoutMs: 60_000,
    maxMemoryMb: 1024,
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(running, { name: 'AbortError', message: 'Conversion was cancelled' });
  assert.equal(liveConversionWorkers(), 0);
});

void test('a heap too small for the model fails as out of memory', async () => {
  await assert.rejects(
    convertInWorker({ modelId: 'o', source: truck, logger: quietLogger, timeoutMs: 60_000, maxMemoryMb: 2 }),
    { message: 'Conversion ran out of memory' },
  );
  assert.equal(liveConversionWorkers(), 0);
});
