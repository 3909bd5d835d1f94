import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import type { PooledFileConversion } from '../../src/threads/pool-types.ts';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { childPids } from '../helpers/child-pids.ts';
import { MODELS, quietLogger, tempDir } from '../pipeline/documents.ts';
import { torus, writeBinaryStl } from '../pipeline/torus.ts';
import { truck, writeTinyStl } from './pool-fixtures.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** Conversion processes this process has running now (zombies have no command line and do not count). */
function conversionProcesses(): number[] {
  return childPids().filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('conversion-process');
    } catch {
      return false; // Gone since the list was read.
    }
  });
}

/** Waits up to two seconds for every conversion process to be gone; fails naming those left. */
async function noConversionProcessLeft(): Promise<void> {
  for (let i = 0; i < 40 && conversionProcesses().length > 0; i++) await sleep(50);
  assert.deepEqual(conversionProcesses(), [], 'no conversion process is left running');
}

/** The LODs' levels, triangles and SHA-256 digests, to compare two conversions. */
function lodDigests(result: PooledFileConversion): string[] {
  return result.lods.map((lod) => `${lod.level} ${lod.triangle_count} ${lod.sha256}`);
}

void it('an input above the size bound converts in a process of its own, the same as in a thread, in the place of a thread', async () => {
  const pool = createConversionPool({ size: 1, isolateAboveBytes: 1024 });
  try {
    const inThread = await pool.convert({
      modelId: 'tiny',
      source: await writeTinyStl(scratch.dir, 'tiny.stl'),
      logger: quietLogger,
      lodDir: path.join(scratch.dir, 'small'),
    });
    assert.equal(inThread.processPeakRssMb, undefined, 'a file under the bound stays in the thread');
    const stages = new Set<string>();
    let asked: string[] = [];
    const inProcess = await pool.convert({
      modelId: 'truck',
      source: truck,
      logger: quietLogger,
      lodDir: path.join(scratch.dir, 'isolated'),
      onProgress: (_percent, stage) => stages.add(stage),
      thumbnailColours: (groupIds) => {
        asked = groupIds;
        return Promise.resolve(new Map());
      },
    });
    assert.ok(inProcess.processPeakRssMb! > 0, 'the process reports its peak memory');
    assert.deepEqual([...stages].slice(-1), ['thumbnail']);
    assert.ok(
      stages.has('import') && stages.has('lods'),
      `progress from every stage: ${[...stages].join(', ')}`,
    );
    assert.deepEqual(asked, ['truck:0', 'truck:1', 'truck:2'], 'the colours were asked for over the channel');
    assert.equal(inProcess.thumbnailError, null);
    assert.deepEqual([...inProcess.thumbnail!.subarray(1, 4)], [...Buffer.from('PNG')]);
    await noConversionProcessLeft();
    // The thread whose turn it was gave its place to the process, and a fresh one took it back after.
    assert.deepEqual(pool.stats(), { threads: 1, started: 2, queued: 0, processes: 0 });

    // Without a folder for the LODs the conversion returns their bytes, and stays in the thread whatever its size.
    const inBytes = await pool.convert({ modelId: 'truck', source: truck, logger: quietLogger });
    assert.ok(!('processPeakRssMb' in inBytes), 'bytes come back from the thread');
    const threadPool = createConversionPool({ size: 1 });
    try {
      const sameInThread = await threadPool.convert({
        modelId: 'truck',
        source: truck,
        logger: quietLogger,
        lodDir: path.join(scratch.dir, 'thread'),
      });
      assert.deepEqual(lodDigests(inProcess), lodDigests(sameInThread), 'the same LOD bytes');
      assert.deepEqual(inProcess.parts, sameInThread.parts);
    } finally {
      await threadPool.close();
    }
  } finally {
    await pool.close();
  }
});

for (const [where, isolateAboveBytes] of [
  ['in a thread', Infinity],
  ['in a process of its own', 0],
] as const) {
  void it(`a job that exceeds the memory limit ${where} fails naming it, and the pool recovers`, async () => {
    const big = path.join(scratch.dir, 'big.stl');
    await writeBinaryStl(big, torus(1000, 400));
    const pool = createConversionPool({ size: 1, maxMemoryMb: 100, isolateAboveBytes });
    try {
      await assert.rejects(
        pool.convert({
          modelId: 'm',
          source: { file: big, dir: scratch.dir, format: 'stl' },
          logger: quietLogger,
          lodDir: path.join(scratch.dir, 'big-lods'),
        }),
        {
          name: 'ConversionError',
          message: /more memory than the limit of 100 MB \(CONVERSION_MAX_MEMORY_MB\)/,
        },
      );
      await noConversionProcessLeft();
      // A fresh thread in the place of the one that ran out, or of the process.
      assert.deepEqual(pool.stats(), { threads: 1, started: 2, queued: 0, processes: 0 });
      const next = await pool.convert({
        modelId: 'n',
        source: truck,
        logger: quietLogger,
        lodDir: path.join(scratch.dir, 'after-memory'),
      });
      assert.equal(next.lods.length, 3);
    } finally {
      await pool.close();
    }
  });
}

void it('an isolated job over its time limit, or cancelled, has its process killed; the queue goes on', async () => {
  // The limit counts the process's processor time; a far wall-clock ceiling leaves the verdict to it on a busy machine.
  // Three seconds of it: well above what the truck's first report costs, so the cancelled job is cancelled, not late.
  const pool = createConversionPool({
    size: 1,
    timeoutMs: 3_000,
    wallCeilingFactor: 100,
    isolateAboveBytes: 0,
  });
  const big = path.join(scratch.dir, 'over-time.stl');
  await writeBinaryStl(big, torus(1400, 500));
  try {
    // 1.4 million triangles take about twice the limit's processor time to convert; the queued job waits.
    const slow = pool.convert({
      modelId: 'slow',
      source: { file: big, dir: scratch.dir, format: 'stl' },
      logger: quietLogger,
      lodDir: path.join(scratch.dir, 'slow'),
    });
    // Cancelled at its first report, so once its own process runs (after a fresh thread took the timed-out one's
    // place): on the event, not on a poll that a loaded machine could delay past the job's own time limit.
    const controller = new AbortController();
    let processesWhenCancelled: number | undefined;
    const cancelled = pool.convert({
      modelId: 'cancelled',
      source: truck,
      logger: quietLogger,
      signal: controller.signal,
      lodDir: path.join(scratch.dir, 'cancelled'),
      onProgress: () => {
        processesWhenCancelled ??= pool.stats().processes;
        controller.abort();
      },
    });
    // Handled from the start: a rejection before the assertion below is read there, not lost as unhandled.
    cancelled.catch(() => undefined);
    await assert.rejects(slow, { name: 'ConversionError', message: 'Conversion timed out after 3 s' });
    await assert.rejects(cancelled, { name: 'AbortError', message: 'Conversion was cancelled' });
    assert.equal(processesWhenCancelled, 1, 'the queued job ran in its own process');
    await noConversionProcessLeft();
    // The first thread, and a fresh one after each of the two processes.
    assert.deepEqual(pool.stats(), { threads: 1, started: 3, queued: 0, processes: 0 });
  } finally {
    await pool.close();
  }
});

void it('a .gltf is measured with the buffer files it names, not by its JSON alone', async () => {
  const dir = path.join(MODELS, 'gltf/BoxTextured');
  const box: ImportSource = { file: path.join(dir, 'BoxTextured.gltf'), dir, format: 'gltf' };
  // The JSON is 3,695 bytes and its buffer 840: together they are over the bound, the JSON alone is not.
  const pool = createConversionPool({ size: 1, isolateAboveBytes: 4_000 });
  try {
    const result = await pool.convert({
      modelId: 'box',
      source: box,
      logger: quietLogger,
      lodDir: path.join(scratch.dir, 'box'),
    });
    assert.ok(result.processPeakRssMb! > 0, 'converted in a process of its own');
    assert.equal(result.triangle_count, 12);
  } finally {
    await pool.close();
  }
});
