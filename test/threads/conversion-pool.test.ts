import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ImportSource } from '../../src/pipeline/types.ts';
import { renderThumbnail } from '../../src/render/render-thumbnail.ts';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import type { ConversionPool } from '../../src/threads/pool-types.ts';
import { MODELS, quietLogger, readGlb, tempDir, validationErrors } from '../pipeline/documents.ts';
import { decodeRgba } from '../render/silhouette.ts';
import { torus, writeBinaryStl } from '../pipeline/torus.ts';
import { timedOutWaiting, truck, writeTinyStl } from './pool-fixtures.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** A tiny model the pool converts in a fraction of a second. */
function tinyStl(name: string): Promise<ImportSource> {
  return writeTinyStl(scratch.dir, name);
}

/** A model of 120,000 triangles: a few tens of megabytes of arrays, LODs and simplifier heap at the job's peak. */
async function growingStl(name: string): Promise<ImportSource> {
  const file = path.join(scratch.dir, name);
  await writeBinaryStl(file, torus(400, 150));
  return { file, dir: scratch.dir, format: 'stl' };
}

/**
 * A model of 360,000 triangles, three times the growing one: what its job maps cannot all come from memory that
 * the earlier jobs of this file freed and the allocator kept, so the process's resident memory grows for sure.
 */
async function largestStl(name: string): Promise<ImportSource> {
  const file = path.join(scratch.dir, name);
  await writeBinaryStl(file, torus(800, 225));
  return { file, dir: scratch.dir, format: 'stl' };
}

void describe('the conversion pool', () => {
  let pool: ConversionPool;
  before(() => void (pool = createConversionPool({ size: 1 })));
  after(() => pool.close());

  void it('converts in a warm thread, forwarding progress, and renders the thumbnail there with the parts colours', async () => {
    const progress: number[] = [];
    let asked: string[] = [];
    const result = await pool.convert({
      modelId: 'truck',
      source: truck,
      logger: quietLogger,
      onProgress: (percent) => progress.push(percent),
      thumbnailColours: (groupIds) => {
        asked = groupIds;
        return Promise.resolve(
          new Map([[groupIds[0], { color: [1, 0, 0] as [number, number, number], alpha: 1 }]]),
        );
      },
    });
    assert.equal(result.lods.length, 3);
    for (const lod of result.lods) assert.deepEqual(await validationErrors(lod.glb), []);
    const lod2 = await readGlb(result.lods[2].glb);
    assert.equal(
      lod2
        .getRoot()
        .listNodes()
        .filter((node) => typeof node.getExtras().group_id === 'string').length,
      result.parts.length,
    );
    assert.deepEqual(
      asked,
      result.parts.map((part) => part.group_id),
    );
    assert.equal(result.thumbnailError, null);
    assert.equal(result.thumbnail?.subarray(1, 4).toString('latin1'), 'PNG');
    assert.equal(progress.at(-1), 100);
  });

  void it('renders the same picture as in-process, and rejects with the renderer’s own error', async () => {
    const glb = new Uint8Array(await readFile(path.join(MODELS, 'glb/MultiUVTest.glb')));
    const options = {
      width: 96,
      height: 64,
      materialOverrides: new Map([['none', { color: [1, 0, 0] as [number, number, number], alpha: 1 }]]),
    };
    const inThread = await decodeRgba(await pool.render(glb, options));
    const inProcess = await decodeRgba(await renderThumbnail(glb, options));
    assert.deepEqual([inThread.width, inThread.height], [96, 64]);
    assert.deepEqual(inThread.data, inProcess.data);
    await assert.rejects(pool.render(new Uint8Array(64)), { message: /not a GLB file/ });
  });

  void it('keeps its threads between jobs', async () => {
    const before = pool.stats().started;
    await pool.convert({ modelId: 'a', source: await tinyStl('a.stl'), logger: quietLogger });
    await pool.convert({ modelId: 'b', source: await tinyStl('b.stl'), logger: quietLogger });
    assert.equal(pool.stats().started, before);
    assert.equal(pool.stats().threads, 1);
  });

  void it('bad input fails with the conversion error message', async () => {
    const empty = path.join(scratch.dir, 'empty.glb');
    await writeFile(empty, '');
    await assert.rejects(
      pool.convert({
        modelId: 'e',
        source: { file: empty, dir: scratch.dir, format: 'glb' },
        logger: quietLogger,
      }),
      { name: 'ConversionError', message: 'The file is empty' },
    );
  });

  void it('aborting a job terminates its thread and the next job runs on a fresh one', async () => {
    const controller = new AbortController();
    const running = pool.convert({
      modelId: 'a',
      source: truck,
      logger: quietLogger,
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 20);
    await assert.rejects(running, { name: 'AbortError', message: 'Conversion was cancelled' });
    const result = await pool.convert({ modelId: 'n', source: await tinyStl('n.stl'), logger: quietLogger });
    assert.equal(result.triangle_count, 1);
    assert.equal(pool.stats().threads, 1);
  });

  void it('writes the LODs into lodDir with their size and SHA-256 when asked, the same bytes it would return', async () => {
    const lodDir = path.join(scratch.dir, 'lods');
    const [inFiles, inBytes] = [
      await pool.convert({ modelId: 'truck', source: truck, logger: quietLogger, lodDir }),
      await pool.convert({ modelId: 'truck', source: truck, logger: quietLogger }),
    ];
    // A level that could not shrink enough shares the finer level's file.
    const names: string[] = [];
    for (const lod of inBytes.lods)
      names.push(lod.reduced ? `lod${lod.level}.glb` : (names.at(-1) ?? 'lod0.glb'));
    assert.deepEqual(
      inFiles.lods.map((lod) => [lod.level, path.basename(lod.file), lod.triangle_count]),
      inBytes.lods.map((lod, index) => [lod.level, names[index], lod.triangle_count]),
    );
    for (const [index, lod] of inFiles.lods.entries()) {
      const bytes = await readFile(lod.file);
      assert.equal(path.dirname(lod.file), lodDir);
      assert.deepEqual(new Uint8Array(bytes), inBytes.lods[index].glb);
      assert.equal(lod.size, bytes.byteLength);
      assert.equal(lod.sha256, createHash('sha256').update(bytes).digest('hex'));
    }
    assert.deepEqual(inFiles.parts, inBytes.parts);
  });
});

void it('a thread recycled mid-queue loses no job', async () => {
  const pool = createConversionPool({ size: 1, recycleAfterJobs: 2 });
  try {
    const jobs = await Promise.all(
      ['r1', 'r2', 'r3', 'r4', 'r5'].map(async (id) =>
        pool.convert({ modelId: id, source: await tinyStl(`${id}.stl`), logger: quietLogger }),
      ),
    );
    assert.deepEqual(
      jobs.map((job) => job.parts[0].group_id),
      ['r1:0', 'r2:0', 'r3:0', 'r4:0', 'r5:0'],
    );
    // One thread at start, replaced after jobs 2 and 4.
    assert.equal(pool.stats().started, 3);
    assert.equal(pool.stats().threads, 1);
  } finally {
    await pool.close();
  }
});

void it('a job that grows its thread past the bound leaves it replaced; a small one keeps it warm', async () => {
  const big = await growingStl('grow.stl');
  const pool = createConversionPool({ size: 1, recycleAboveGrowthMb: 8 });
  try {
    await pool.convert({ modelId: 's', source: await tinyStl('s.stl'), logger: quietLogger });
    assert.equal(pool.stats().started, 1, 'a tiny job keeps its thread');
    await pool.convert({ modelId: 'g', source: big, logger: quietLogger });
    assert.equal(pool.stats().started, 2, 'the big job left its thread replaced');
    assert.equal(pool.stats().threads, 1);
  } finally {
    await pool.close();
  }
  const roomy = createConversionPool({ size: 1 });
  try {
    await roomy.convert({ modelId: 'g', source: big, logger: quietLogger });
    assert.equal(roomy.stats().started, 1, 'within the default bound the thread stays');
  } finally {
    await roomy.close();
  }
});

/** Threads a fresh pool started to run `sources` one after the other, and how many it had started after each. */
async function threadsStarted(
  options: Parameters<typeof createConversionPool>[0],
  sources: ImportSource[],
): Promise<number[]> {
  const pool = createConversionPool({ size: 1, ...options });
  try {
    const started: number[] = [];
    for (const [i, source] of sources.entries()) {
      await pool.convert({ modelId: `m${i}`, source, logger: quietLogger });
      started.push(pool.stats().started);
    }
    return started;
  } finally {
    await pool.close();
  }
}

void it('a job that leaves the process larger by more than the bound leaves its thread replaced', async () => {
  const jobs = [await tinyStl('rss.stl'), await largestStl('grow-rss.stl')];
  // Only the resident-memory bound can replace the thread here: the thread's own bound is out of reach. The tiny
  // first job is held to its own, larger bound.
  assert.deepEqual(
    await threadsStarted({ recycleAboveRssGrowthMb: 8, recycleAboveGrowthMb: 4096 }, jobs),
    [1, 2],
  );
  assert.deepEqual(
    await threadsStarted({ recycleAboveRssGrowthMb: 4096, recycleAboveGrowthMb: 4096 }, jobs),
    [1, 1],
  );
});

void it("a thread's first job is held to a larger bound, and one that loads a WebAssembly importer to none", async () => {
  const big = [await growingStl('grow-first.stl')];
  const firstJobBound = (mb: number) => ({ recycleAboveFirstJobRssGrowthMb: mb, recycleAboveGrowthMb: 4096 });
  assert.deepEqual(await threadsStarted(firstJobBound(1), big), [2], 'replaced beyond 1 MiB');
  assert.deepEqual(await threadsStarted(firstJobBound(4096), big), [1], 'kept within 4096 MiB');
  // OpenCASCADE's runtime adds well over a mebibyte, and stays for the STEP files after this one.
  const step = path.join(MODELS, 'step/screw.step');
  assert.deepEqual(
    await threadsStarted({ recycleAboveFirstJobRssGrowthMb: 1, recycleAboveRssGrowthMb: 1 }, [
      { file: step, dir: path.dirname(step), format: 'step' },
    ]),
    [1],
    'the thread that loaded the importer is kept',
  );
});

void it("jobs that ran side by side are not charged with each other's resident memory", async () => {
  const big = await growingStl('grow-rss-2.stl');
  const pool = createConversionPool({ size: 2, recycleAboveRssGrowthMb: 8, recycleAboveGrowthMb: 4096 });
  try {
    const tiny = await tinyStl('rss-2.stl');
    await Promise.all(
      ['a', 'b'].map((id) => pool.convert({ modelId: id, source: tiny, logger: quietLogger })),
    );
    await Promise.all(
      ['c', 'd'].map((id) => pool.convert({ modelId: id, source: big, logger: quietLogger })),
    );
    assert.equal(pool.stats().started, 2, 'neither thread was replaced');
  } finally {
    await pool.close();
  }
});

void it('a job over its time limit fails, and the queued job after it converts on a fresh thread', async () => {
  // A pipe nobody writes to: the read never ends, well past the time limit and below the watchdog's.
  const fifo = path.join(scratch.dir, 'slow.ply');
  execFileSync('mkfifo', [fifo]);
  const pool = createConversionPool({ size: 1, timeoutMs: 500 });
  try {
    const slow = pool.convert({
      modelId: 't',
      source: { file: fifo, dir: scratch.dir, format: 'ply' },
      logger: quietLogger,
    });
    const next = pool.convert({ modelId: 'n', source: await tinyStl('t.stl'), logger: quietLogger });
    await assert.rejects(slow, { name: 'ConversionError', message: timedOutWaiting(0.5) });
    assert.equal((await next).triangle_count, 1);
    assert.deepEqual(pool.stats(), { threads: 1, started: 2, queued: 0, processes: 0 });
  } finally {
    await unblock(fifo);
    await pool.close();
  }
});

void it('a truncated large file, and a valid one over the triangle limit, fail at once naming what is wrong', async () => {
  const whole = binaryStl(400_000);
  const cut = path.join(scratch.dir, 'cut.stl');
  await writeFile(cut, whole.subarray(0, 10_000_000));
  const valid = path.join(scratch.dir, 'valid.stl');
  await writeFile(valid, whole);
  const pool = createConversionPool({ size: 1 });
  try {
    await assert.rejects(
      pool.convert({
        modelId: 'c',
        source: { file: cut, dir: scratch.dir, format: 'stl' },
        logger: quietLogger,
      }),
      {
        name: 'ConversionError',
        message:
          'Could not read the STL file: the file is truncated: its header declares 400,000 triangles, the file holds 199,998',
      },
    );
    await assert.rejects(
      pool.convert({
        modelId: 'l',
        source: { file: valid, dir: scratch.dir, format: 'stl' },
        logger: quietLogger,
        maxTriangles: 300_000,
      }),
      {
        name: 'ConversionError',
        message: 'The model has 400,000 triangles, more than the limit of 300,000 (CONVERSION_MAX_TRIANGLES)',
      },
    );
  } finally {
    await pool.close();
  }
});

void it('a job wedged waiting on its input, using no processor time, fails at its wall-clock ceiling, and the pool goes on', async () => {
  // A pipe nobody writes to: the importer's read waits forever, as a wedged importer would. Waiting, it uses no
  // processor time, so neither the watchdog nor the time limit (both judge by processor time) ends it: the
  // wall-clock ceiling does.
  const fifo = path.join(scratch.dir, 'stuck.ply');
  execFileSync('mkfifo', [fifo]);
  const pool = createConversionPool({ size: 1, stallMs: 1_000, timeoutMs: 1_000 });
  const started = Date.now();
  try {
    await assert.rejects(
      pool.convert({
        modelId: 'w',
        source: { file: fifo, dir: scratch.dir, format: 'ply' },
        logger: quietLogger,
      }),
      { name: 'ConversionError', message: timedOutWaiting(1) },
    );
    assert.ok(Date.now() - started < 10_000);
    const result = await pool.convert({ modelId: 'n', source: await tinyStl('w.stl'), logger: quietLogger });
    assert.equal(result.triangle_count, 1);
  } finally {
    await unblock(fifo);
    await pool.close();
  }
});

void it('counts no time against a job while it waits on the bound materials (a stalled database)', async () => {
  // The lookup takes longer than the watchdog's silence and the time limit's wall-clock ceiling: neither may fire.
  const pool = createConversionPool({ size: 1, stallMs: 3_000, timeoutMs: 2_500 });
  let waitedMs = 0;
  try {
    const result = await pool.convert({
      modelId: 'd',
      source: await tinyStl('d.stl'),
      logger: quietLogger,
      thumbnailColours: async () => {
        const started = Date.now();
        await new Promise((resolve) => setTimeout(resolve, 8_000));
        waitedMs = Date.now() - started;
        return new Map();
      },
    });
    // Longer than both limits (a timer may fire a millisecond early by the wall clock, so not `>= 8_000`).
    assert.ok(waitedMs > 3_000, `the lookup took ${waitedMs} ms`);
    assert.equal(result.triangle_count, 1);
    assert.ok(result.thumbnail, result.thumbnailError ?? 'no thumbnail');
    // The clocks run again once the thread has its answer: a wedged importer still meets the time limit.
    const fifo = path.join(scratch.dir, 'after-wait.ply');
    execFileSync('mkfifo', [fifo]);
    try {
      await assert.rejects(
        pool.convert({
          modelId: 'x',
          source: { file: fifo, dir: scratch.dir, format: 'ply' },
          logger: quietLogger,
        }),
        { name: 'ConversionError', message: timedOutWaiting(2.5) },
      );
    } finally {
      await unblock(fifo);
    }
  } finally {
    await pool.close();
  }
});

void it('starts its threads when the process runs under the tsx command line', async () => {
  const tsxCli = createRequire(import.meta.url).resolve('tsx/cli');
  const script = fileURLToPath(new URL('./pool-from-tsx-cli.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, [tsxCli, script], { timeout: 60_000 });
  assert.deepEqual(JSON.parse(stdout), { signature: 'PNG' });
});

/** Ends the read a terminated thread left waiting on a pipe (when nobody reads it, opening fails). */
async function unblock(fifo: string): Promise<void> {
  await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).then(
    (handle) => handle.close(),
    () => {},
  );
}

/** A binary STL of `triangles` small triangles in a row. */
function binaryStl(triangles: number): Buffer {
  const bytes = Buffer.alloc(84 + triangles * 50);
  bytes.writeUInt32LE(triangles, 80);
  for (let t = 0; t < triangles; t++) {
    const at = 84 + t * 50 + 12;
    const x = t % 1000;
    const y = Math.floor(t / 1000);
    const corners = [x, y, 0, x + 1, y, 0, x, y + 1, 0];
    corners.forEach((value, index) => bytes.writeFloatLE(value, at + index * 4));
  }
  return bytes;
}
