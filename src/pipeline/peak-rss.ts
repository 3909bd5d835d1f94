import { readFileSync } from 'node:fs';

/**
 * The highest resident memory of this process so far, in bytes. On Linux it is read from `/proc/self/status`
 * (`VmHWM`), because `getrusage`'s figure, which Node's `resourceUsage().maxRSS` gives, also counts the memory the
 * parent had when it started this process: a small process started by a big one would report the big one's size.
 */
export function peakRssBytes(): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (kib) return Number(kib) * 1024;
  } catch {
    // Not Linux: the portable figure below.
  }
  return process.resourceUsage().maxRSS * 1024;
}
