import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { readFileInSteps } from '../../src/pipeline/import/read-file-in-steps.ts';
import { tempDir } from './documents.ts';

void test('readFileInSteps reads the whole file and reports each step', async () => {
  const { dir, remove } = await tempDir();
  try {
    const file = path.join(dir, 'data.bin');
    const bytes = Buffer.from(Array.from({ length: 100_003 }, (_, i) => (i * 31) % 256));
    await writeFile(file, bytes);
    const fractions: number[] = [];
    const read = await readFileInSteps(file, (fraction) => fractions.push(fraction), 10_000);
    assert.ok(read.equals(bytes), 'the same bytes');
    assert.equal(fractions.length, 11);
    assert.deepEqual(
      [...fractions].sort((a, b) => a - b),
      fractions,
      'in order',
    );
    assert.equal(fractions.at(-1), 1);

    await writeFile(file, '');
    assert.equal((await readFileInSteps(file, () => assert.fail('nothing to report'))).byteLength, 0);
    await assert.rejects(
      readFileInSteps(path.join(dir, 'missing.bin'), () => {}),
      { code: 'ENOENT' },
    );
  } finally {
    await remove();
  }
});
