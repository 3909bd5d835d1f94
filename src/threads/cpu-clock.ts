// The processor time of one conversion thread or process, read from Linux's /proc: what the stall watchdog judges a
// silent task by, so that a task waiting for a core on a loaded machine is not taken for a wedged one.
import { execFileSync } from 'node:child_process';
import { readFileSync, readlinkSync } from 'node:fs';

/** Reads the processor time (user plus system) a thread or process has used so far, in ms; undefined once unreadable. */
export type CpuClock = () => number | undefined;

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (`getconf CLK_TCK`), in which /proc counts processor time; 100 if unknown. */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 2_000 }).trim());
      ticksPerSecond = Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
    } catch {
      // Linux has used 100 on every architecture for decades; getconf missing is no reason to give up the clock.
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/**
 * The processor time in a `/proc/…/stat` line, in ms: utime and stime, its 14th and 15th fields. The command name
 * (field 2, in parentheses) may hold spaces and parentheses itself, so the fields are counted from its last `)`.
 */
export function statCpuMs(stat: string, ticks: number): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return ((utime + stime) * 1000) / ticks;
}

/** The clock of the thread or process whose stat file is `statFile`, or undefined where it cannot be read (no /proc). */
export function cpuClockAt(statFile: string): CpuClock | undefined {
  const read: CpuClock = () => {
    try {
      return statCpuMs(readFileSync(statFile, 'latin1'), clockTicks());
    } catch {
      // The thread or process has ended, or /proc went away: the caller falls back to the wall clock.
      return undefined;
    }
  };
  return read() === undefined ? undefined : read;
}

/** The clock of process `pid` (all its threads), or undefined without /proc. */
export function processCpuClock(pid: number | undefined): CpuClock | undefined {
  return pid === undefined ? undefined : cpuClockAt(`/proc/${pid}/stat`);
}

/**
 * Where the calling thread's own processor time can be read (`/proc/<pid>/task/<tid>/stat`), for it to send to the
 * pool; undefined without /proc (macOS), where the watchdog keeps to the wall clock.
 */
export function ownThreadStatFile(): string | undefined {
  try {
    return `/proc/${readlinkSync('/proc/thread-self')}/stat`;
  } catch {
    return undefined;
  }
}
