// The stall watchdog and the time limit judge a task by its own processor time: real threads that sleep or spin, watched as
// the pool watches a conversion thread.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { Logger } from '@gltf-transform/core';
import { cpuClockAt, type CpuClock } from '../../src/threads/cpu-clock.ts';
import type { Task, Thread } from '../../src/threads/pool-places.ts';
import { armTaskClocks } from '../../src/threads/task-clocks.ts';
import { startCpuSpinners } from './cpu-spinners.ts';
import { timedOutWaiting } from './pool-fixtures.ts';

const hasProc = existsSync('/proc/thread-self');

/** Code of a thread that sends where its processor time is read, then runs `body`. */
function threadCode(body: string): string {
  return (
    "const { readlinkSync } = require('node:fs'); const { parentPort } = require('node:worker_threads');" +
    "parentPort.postMessage(`/proc/${readlinkSync('/proc/thread-self')}/stat`);" +
    body
  );
}

/** A thread that waits without computing, for the whole test. */
const SLEEPER = threadCode('Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);');
/** A thread that computes without a word, as a wedged importer spinning in a loop. */
const SPINNER = threadCode('for (;;) {}');

/** Starts a thread on `code` and its clock once it has said where its processor time is read. */
async function startWatched(code: string): Promise<{ worker: Worker; clock: CpuClock }> {
  const worker = new Worker(code, { eval: true });
  const statFile = await new Promise<string>((resolve) => worker.once('message', resolve));
  const clock = cpuClockAt(statFile);
  assert.ok(clock, `no clock at ${statFile}`);
  return { worker, clock };
}

/** Arms the clocks of a task on a thread with `clock` and resolves with how the task failed, and when. */
function watch(
  clock: CpuClock,
  limits: { stallMs: number; timeoutMs: number; wallCeilingFactor?: number },
): Promise<{ error: Error; stalled: boolean; cpuMs: number; wallMs: number }> {
  const thread: Thread = { ready: true, jobs: 0, cpuClock: clock };
  const task: Task = {
    id: 1,
    message: { type: 'convert' } as Task['message'],
    timeoutMs: limits.timeoutMs,
    logger: new Logger(Logger.Verbosity.SILENT),
    resolve: () => {},
    reject: () => {},
  };
  thread.task = task;
  const cpuAtStart = clock()!;
  const startedAt = Date.now();
  return new Promise((resolve) => {
    armTaskClocks(thread, task, { wallCeilingFactor: 3, ...limits }, (error, stalled = false) => {
      thread.disarm?.();
      resolve({ error, stalled, cpuMs: clock()! - cpuAtStart, wallMs: Date.now() - startedAt });
    });
  });
}

void describe(
  'the stall watchdog',
  { skip: !hasProc && 'no /proc on this system: the watchdog keeps to the wall clock' },
  () => {
    void it('ends a thread that waits without computing at the wall-clock ceiling of its time limit', async () => {
      const { worker, clock } = await startWatched(SLEEPER);
      try {
        const ended = await watch(clock, { stallMs: 500, timeoutMs: 1_000 });
        assert.equal(ended.stalled, false);
        assert.equal(ended.error.message, timedOutWaiting(1));
        assert.ok(ended.wallMs >= 3_000, `ended after ${ended.wallMs} ms`);
        assert.ok(ended.cpuMs < 500, `the sleeper used ${ended.cpuMs} ms`);
      } finally {
        await worker.terminate();
      }
    });

    void it('fails a thread that computes past its time limit once it has used that much processor time, however busy the machine', async () => {
      // Two busy processes per core: the spinner gets a share of a core, so a wall-clock limit would end it early.
      const spinners = startCpuSpinners();
      const { worker, clock } = await startWatched(SPINNER);
      try {
        // Reports keep the watchdog quiet: this is a task at work, only a long one.
        // A ceiling far away: the spinner's share of a core decides nothing.
        const ended = await watch(clock, { stallMs: 60_000, timeoutMs: 1_500, wallCeilingFactor: 100 });
        assert.equal(ended.stalled, false);
        assert.equal(ended.error.message, 'Conversion timed out after 1.5 s');
        assert.ok(ended.cpuMs >= 1_500, `failed after ${ended.cpuMs} ms of processor time`);
      } finally {
        await worker.terminate();
        await spinners.stop();
      }
    });

    void it('fails a thread that computes without a word once it has used the stall limit of processor time, however busy the machine', async () => {
      // Two busy processes per core: the spinner gets a share of a core, so a wall clock would fail it early.
      const spinners = startCpuSpinners();
      const { worker, clock } = await startWatched(SPINNER);
      try {
        const ended = await watch(clock, { stallMs: 1_000, timeoutMs: 60_000 });
        assert.equal(ended.stalled, true);
        assert.equal(
          ended.error.message,
          'The importer stopped making progress for 1 s: the file is probably damaged or truncated',
        );
        assert.ok(ended.cpuMs >= 1_000, `failed after ${ended.cpuMs} ms of processor time`);
        // About the limit: the watchdog looks again when the limit could first be reached, not a whole limit later.
        assert.ok(ended.cpuMs < 2_000, `failed after ${ended.cpuMs} ms of processor time`);
      } finally {
        await worker.terminate();
        await spinners.stop();
      }
    });

    void it('starts the silence again at each report', async () => {
      const { worker, clock } = await startWatched(SPINNER);
      let reports = 0;
      const thread: Thread = { ready: true, jobs: 0, cpuClock: clock };
      try {
        const ended = await new Promise<{ stalled: boolean; cpuMs: number }>((resolve) => {
          const task: Task = {
            id: 1,
            message: { type: 'render' } as Task['message'],
            timeoutMs: 60_000,
            logger: new Logger(Logger.Verbosity.SILENT),
            resolve: () => {},
            reject: () => {},
          };
          thread.task = task;
          const cpuAtStart = clock()!;
          // Reports every 200 ms of its processor time, three times, then falls silent.
          let lastReportCpu = cpuAtStart;
          const reporter = setInterval(() => {
            if (reports < 3 && clock()! - lastReportCpu >= 200) {
              reports++;
              lastReportCpu = clock()!;
              thread.feed?.();
            }
          }, 20);
          armTaskClocks(thread, task, { stallMs: 400, wallCeilingFactor: 3 }, (error, stalled = false) => {
            clearInterval(reporter);
            thread.disarm?.();
            assert.equal(error.message, 'Thumbnail rendering stopped making progress for 0.4 s');
            resolve({ stalled, cpuMs: clock()! - cpuAtStart });
          });
        });
        assert.equal(ended.stalled, true);
        assert.equal(reports, 3);
        assert.ok(ended.cpuMs >= 3 * 200 + 400, `failed after ${ended.cpuMs} ms of processor time`);
      } finally {
        await worker.terminate();
      }
    });
  },
);
