import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { cpuClockAt, ownThreadStatFile, processCpuClock, statCpuMs } from '../../src/threads/cpu-clock.ts';

const hasProc = existsSync('/proc/thread-self');

void describe('the processor-time clock', () => {
  void it('reads utime and stime from a stat line, counting fields from the end of the command name', () => {
    // A command name with a space and a closing parenthesis in it, as a thread may be named.
    const stat = '4242 (node (x) y) R 1 2 3 4 5 6 7 8 9 10 250 70 11 12 20 0 1 0 100 0 0';
    assert.equal(statCpuMs(stat, 100), 3200);
    assert.equal(statCpuMs(stat, 1000), 320);
    assert.equal(statCpuMs('garbage', 100), undefined);
  });

  void it('has no clock where the stat file cannot be read', () => {
    assert.equal(cpuClockAt('/nonexistent/stat'), undefined);
    assert.equal(processCpuClock(undefined), undefined);
  });

  void it(
    "reads the calling thread's processor time, which grows while it computes and not while it sleeps",
    { skip: !hasProc && 'no /proc on this system' },
    async () => {
      const statFile = ownThreadStatFile();
      assert.ok(statFile);
      assert.match(statFile, /^\/proc\/\d+\/task\/\d+\/stat$/);
      const clock = cpuClockAt(statFile)!;
      const before = clock()!;
      const spinUntil = clock()! + 300;
      let spins = 0;
      while (clock()! < spinUntil) spins++;
      assert.ok(clock()! - before >= 300, `${spins} reads`);
      const asleep = clock()!;
      await new Promise((resolve) => setTimeout(resolve, 300));
      // A sleeping thread uses no processor time; the timer's wake-up a tick at most.
      assert.ok(clock()! - asleep <= 100, `slept using ${clock()! - asleep} ms`);
      assert.ok(processCpuClock(process.pid)!()! >= clock()!);
    },
  );
});
