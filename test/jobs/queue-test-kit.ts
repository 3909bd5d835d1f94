import assert from 'node:assert/strict';
import { JobName, type Job, type JobHandlers } from '../../src/jobs/job-types.ts';

// Small enough that retries, leases and polling play out in well under a second.
/** The queue tuning every queue test uses. */
export const FAST = {
  pollMs: 20,
  backoffMs: 50,
  leaseMs: 300,
  failureRetry: { firstDelayMs: 20, maxDelayMs: 80, forMs: 1_000 },
};

/** What the queues log to. */
export type QueueLogger = { info: Logged; warn: Logged; error: Logged };
type Logged = (context: unknown, message?: string) => void;

/** A queue logger that keeps what it was told, so tests stay quiet and can check the queue's own account. */
export function recordingLogger(): QueueLogger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (level: string) => (_context: unknown, message?: string) =>
    void lines.push(`${level}: ${message}`);
  return { lines, info: keep('info'), warn: keep('warn'), error: keep('error') };
}

type Run = (job: Job, signal: AbortSignal) => Promise<void>;
type Failed = (job: Job, error: Error) => Promise<void>;

/** The same handler for every job name; tests enqueue `convert-model` jobs unless the name matters. */
export function handlers(run: Run, failed: Failed = async () => {}): JobHandlers {
  return Object.fromEntries(Object.values(JobName).map((name) => [name, { run, failed }])) as JobHandlers;
}

/** Polls until `check` holds, failing with `what` after `timeoutMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(10);
  }
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolve function, for handlers that wait for the test. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** Resolves when the signal aborts, rejecting like a real handler whose work was cut short. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const cut = () => reject(new Error('aborted'));
    if (signal.aborted) cut();
    else signal.addEventListener('abort', cut, { once: true });
  });
}
