import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { test } from 'node:test';
import { convertModel } from '../../src/pipeline/convert-model.ts';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { boxStl } from '../fixtures/box-stl.ts';
import { MODELS, quietLogger, tempDir } from '../pipeline/documents.ts';

void test('an STL declared as millimetres and Z up comes out in metres with +Y up', async () => {
  const { dir, remove } = await tempDir();
  try {
    // 100 mm long (x), 50 mm deep (y), 20 mm tall (z, up in the file).
    const file = path.join(dir, 'bracket.stl');
    await writeFile(file, boxStl(100, 50, 20));
    const source: ImportSource = { file, dir, format: 'stl', unit: 'mm', up: 'z' };
    const result = await convertModel({ modelId: 'mm', source, logger: quietLogger });
    const size = result.bounds.max.map((max, axis) => max - result.bounds.min[axis]);
    for (const [axis, expected] of [0.1, 0.02, 0.05].entries()) {
      assert.ok(Math.abs(size[axis] - expected) < 1e-6, `size ${size.join(', ')}`);
    }
    // Height stands on +Y: the box rises from y = 0.
    assert.ok(Math.abs(result.bounds.min[1]) < 1e-6 && result.bounds.max[1] > 0.019);
    assert.equal(result.source_unit, 'mm');
    assert.equal(result.source_up_axis, '+Z');

    // Undeclared, the numbers stay metres and the axes as they are.
    const plain = await convertModel({
      modelId: 'm',
      source: { file, dir, format: 'stl' },
      logger: quietLogger,
    });
    assert.deepEqual(plain.bounds, { min: [0, 0, 0], max: [100, 50, 20] });
    assert.equal(plain.source_unit, 'unknown');
  } finally {
    await remove();
  }
});

void test('a file that states its own unit and axis keeps them whatever the uploader declared', async () => {
  const file = path.join(MODELS, 'fbx/cubes_with_names.fbx');
  const source: ImportSource = { file, dir: path.dirname(file), format: 'fbx' };
  const declared = await convertModel({
    modelId: 'a',
    source: { ...source, unit: 'ft', up: 'z' },
    logger: quietLogger,
  });
  const plain = await convertModel({ modelId: 'b', source, logger: quietLogger });
  assert.deepEqual(declared.bounds, plain.bounds);
  assert.equal(declared.source_unit, plain.source_unit);
});
