// A conversion asks for a full collection between listing the parts and writing LOD 0, when its heap is large: the
// listing's garbage would otherwise sit under LOD 0's copy at the conversion's peak.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import { manyPartsObj } from '../fixtures/many-parts-obj.ts';
import { Logger } from '@gltf-transform/core';

/** The conversion's debug lines, kept. */
class KeptLines extends Logger {
  readonly lines: string[] = [];
  constructor() {
    super(Logger.Verbosity.DEBUG);
  }
  override debug(text: string): void {
    this.lines.push(text);
  }
}

async function convertBoxes(
  collectAboveHeapBytes: number,
): Promise<{ collections: number; stages: string[] }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'vitrine-collect-'));
  try {
    const file = path.join(dir, 'boxes.obj');
    await writeFile(file, manyPartsObj({ groups: 20, kind: 'distinct' }));
    const logger = new KeptLines();
    let collections = 0;
    await convertModel({
      modelId: 'collect',
      source: { file, dir, format: 'obj' },
      logger,
      collectGarbage: () => void collections++,
      collectAboveHeapBytes,
    });
    const stages = logger.lines
      .map((line) => /^convert-model: (parts listed|garbage collected|LOD 0 written) in/.exec(line)?.[1])
      .filter((stage) => stage !== undefined);
    return { collections, stages };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

void test('a large heap is collected once, after the parts are listed and before LOD 0 is written', async () => {
  const { collections, stages } = await convertBoxes(0);
  assert.equal(collections, 1);
  assert.deepEqual(stages, ['parts listed', 'garbage collected', 'LOD 0 written']);
});

void test('a heap under the bound is left to V8', async () => {
  const { collections, stages } = await convertBoxes(Number.MAX_SAFE_INTEGER);
  assert.equal(collections, 0);
  assert.deepEqual(stages, ['parts listed', 'LOD 0 written']);
});
