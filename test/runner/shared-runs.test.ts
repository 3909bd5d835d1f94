// What the runner shares between test files: sample conversions made once per run, and its summary of where the
// time went.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serialize } from 'node:v8';
import { convertedSample } from '../helpers/converted-samples.ts';
import { usageSummary } from './file-usage.ts';

void describe('sample conversions shared through the run’s folder', () => {
  let folder: string;
  let before_: string | undefined;
  before(() => {
    before_ = process.env.TEST_CONVERSION_CACHE;
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-shared-conversions-'));
    process.env.TEST_CONVERSION_CACHE = folder;
  });
  after(() => {
    if (before_ === undefined) delete process.env.TEST_CONVERSION_CACHE;
    else process.env.TEST_CONVERSION_CACHE = before_;
    fs.rmSync(folder, { recursive: true, force: true });
  });

  void it('gives two suites asking at once the same levels, leaving one result and no claim behind', async () => {
    const [first, second] = await Promise.all([
      convertedSample('stl/sphereWithHole.stl'),
      convertedSample('stl/sphereWithHole.stl'),
    ]);
    assert.deepEqual(
      fs.readdirSync(folder).map((name) => path.extname(name)),
      ['.v8'],
      'one result kept, no claim left',
    );
    assert.equal(first.lods.length, 3);
    for (const [index, lod] of second.lods.entries()) {
      assert.deepEqual(Buffer.from(lod.glb), Buffer.from(first.lods[index]!.glb), `LOD ${lod.level}`);
      // Readers of GLBs view them as 32-bit words: each array starts a buffer of its own.
      assert.equal(lod.glb.byteOffset, 0);
    }
  });

  void it('reads a sample converted before from the folder, not converting it again', async () => {
    const [kept] = fs.readdirSync(folder);
    const result = await convertedSample('stl/sphereWithHole.stl');
    fs.writeFileSync(path.join(folder, kept!), serialize({ ...result, triangle_count: -1 }));
    assert.equal((await convertedSample('stl/sphereWithHole.stl')).triangle_count, -1);
  });

  void it('keeps a level that is the level before it one array, as the pipeline gives it', async () => {
    const result = await convertedSample('stl/sphereWithHole.stl');
    const copied = result.lods.filter((lod) => lod.level > 0 && !lod.reduced);
    assert.ok(copied.length > 0, 'the sphere with a hole has levels that could not be reduced');
    for (const lod of copied) assert.equal(lod.glb, result.lods[lod.level - 1]!.glb);
  });
});

void describe('the run’s summary of where the time went', () => {
  void it('adds up processor time, own and children’s, and lists the slowest files by wall time', () => {
    const lines = usageSummary(
      [
        { file: 'test/a.test.ts', wallSeconds: 5, cpuSeconds: 30, childCpuSeconds: 30 },
        { file: 'test/b.test.ts', wallSeconds: 50, cpuSeconds: 1, childCpuSeconds: 2 },
        { file: 'test/c.test.ts', wallSeconds: 20, cpuSeconds: 4, childCpuSeconds: 0 },
      ],
      2,
    );
    assert.match(lines[0]!, /^Test files: 3, processor time 1\.1 min in all/);
    assert.deepEqual(
      lines.slice(1).map((line) => line.trim().split(/\s+/)),
      [
        ['50.0', '3.0', 'test/b.test.ts'],
        ['20.0', '4.0', 'test/c.test.ts'],
      ],
    );
    assert.deepEqual(usageSummary([]), []);
  });
});
