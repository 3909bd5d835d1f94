// A task the watchdog stops is tried once more with the pool to itself before it fails: the task running beside it
// finishes first, the tasks queued after it wait for it, and its log says so.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, it } from 'node:test';
import { Logger } from '@gltf-transform/core';
import { createConversionPool } from '../../src/threads/conversion-pool.ts';
import type { ConversionPool } from '../../src/threads/pool-types.ts';
import { quietLogger, tempDir } from '../pipeline/documents.ts';
import { truck, writeTinyStl } from './pool-fixtures.ts';

let scratch: Awaited<ReturnType<typeof tempDir>>;
before(async () => void (scratch = await tempDir()));
after(() => scratch.remove());

/** A logger that keeps its warnings, with when each came. */
function keepingLogger(): Logger & { warnings: { text: string; at: number }[] } {
  const logger = Object.assign(new Logger(Logger.Verbosity.WARN), {
    warnings: [] as { text: string; at: number }[],
  });
  logger.warn = (text: string) => void logger.warnings.push({ text, at: Date.now() });
  return logger;
}

/** A conversion of a one-triangle model that holds its place while it waits for `gate` (its clocks stand meanwhile). */
function heldConversion(pool: ConversionPool, name: string, gate: Promise<void>, holding: () => void) {
  return writeTinyStl(scratch.dir, `${name}.stl`).then((source) =>
    pool.convert({
      modelId: name,
      source,
      logger: quietLogger,
      thumbnailColours: async () => {
        holding();
        await gate;
        return new Map();
      },
    }),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

void it('retries a stalled task once alone: the running task ends first, the queued one waits, then it fails', async () => {
  // 0.3 s of processor time without a word: a 1024² render at 4×4 samples per pixel takes several times that, on
  // every try, so the render stalls twice; the conversions beside it report progress well within it.
  const pool = createConversionPool({ size: 3, stallMs: 300, timeoutMs: 60_000 });
  const times: Record<string, number> = {};
  try {
    // Three conversions held at once hold the three threads: all three are ready. Two then end, and one holds on
    // beside what follows.
    let holders = 0;
    let allHolding!: () => void;
    const threeHolding = new Promise<void>((resolve) => (allHolding = resolve));
    const holding = () => void (++holders === 3 && allHolding());
    let releaseTwo!: () => void;
    const two = new Promise<void>((resolve) => (releaseTwo = resolve));
    let releaseBeside!: () => void;
    const besideGate = new Promise<void>((resolve) => (releaseBeside = resolve));
    const warmers = [heldConversion(pool, 'a', two, holding), heldConversion(pool, 'b', two, holding)];
    const beside = heldConversion(pool, 'beside', besideGate, holding).finally(
      () => (times.besideDone = Date.now()),
    );
    await threeHolding;
    releaseTwo();
    await Promise.all(warmers);

    const logger = keepingLogger();
    const stalling = pool
      .render(await readFile(truck.file), { width: 1024, height: 1024, supersample: 4 }, undefined, logger)
      .finally(() => (times.stalledDone = Date.now()));
    const started = Date.now();
    while (logger.warnings.length === 0 && Date.now() - started < 60_000) await sleep(20);
    // A thread is free and ready, yet the retry waits: the conversion beside it still runs.
    assert.equal(pool.stats().queued, 1, 'the retry waits for the pool to be its own');
    const queued = pool
      .convert({
        modelId: 'after',
        source: await writeTinyStl(scratch.dir, 'after.stl'),
        logger: quietLogger,
      })
      .finally(() => (times.queuedDone = Date.now()));
    // It joins the queue behind the retry; that it runs only after the retry is checked by the times below.
    for (const since = Date.now(); pool.stats().queued < 2 && Date.now() - since < 10_000;) await sleep(20);
    assert.equal(pool.stats().queued, 2, 'the task queued after the retry waits behind it');
    releaseBeside();

    await assert.rejects(stalling, {
      name: 'ConversionError',
      message: 'Thumbnail rendering stopped making progress for 0.3 s',
    });
    assert.equal((await beside).triangle_count, 1);
    assert.equal((await queued).triangle_count, 1);
    assert.deepEqual(
      logger.warnings.map((warning) => warning.text),
      [
        'Thumbnail rendering stopped making progress for 0.3 s; trying once more with the conversion pool to ' +
          'itself (no other task beside it) before failing it',
      ],
    );
    assert.ok(times.besideDone! <= times.stalledDone!, 'the retry ended after the task beside it');
    assert.ok(times.queuedDone! >= times.stalledDone!, 'the task queued behind the retry ran after it');
  } finally {
    await pool.close();
  }
});
