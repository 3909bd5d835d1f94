import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { REPO, sleep } from './service-process.ts';

/** A command started in a process group of its own, as a terminal or a process manager would start it. */
export interface GroupRun {
  child: ChildProcess;
  /** Settles with the exit code of the command itself (not of what it started). */
  exited: Promise<number | null>;
  /** Everything written to stdout and stderr so far. */
  output(): string;
}

const started: ChildProcess[] = [];

/**
 * Starts `command args` in the repository with only PATH, HOME and `env` for an environment, in a process group of
 * its own so that every process it starts can be found (and killed) through the group.
 */
export function spawnGroup(command: string, args: string[], env: Record<string, string>): GroupRun {
  const child = spawn(command, args, {
    cwd: REPO,
    detached: true,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

/** Waits until the output matches `pattern`, failing if the command exits first or after `timeoutMs`. */
export async function waitForGroupOutput(run: GroupRun, pattern: RegExp, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(run.output())) {
    if (run.child.exitCode !== null || run.child.signalCode !== null)
      assert.fail(`exited before printing ${pattern}:\n${run.output()}`);
    if (Date.now() > deadline) assert.fail(`printed no ${pattern} within ${timeoutMs} ms:\n${run.output()}`);
    await sleep(100);
  }
}

/** True while any process of the group led by `pid` is alive. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True while something accepts connections on the port. */
export function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Milliseconds until every process of the run's group is gone and, when given, the port is free; fails after
 * `limitMs`.
 */
export async function timeUntilGone(
  run: GroupRun,
  port: number | undefined,
  limitMs: number,
): Promise<number> {
  const start = Date.now();
  while (groupAlive(run.child.pid!) || (port !== undefined && (await portOpen(port)))) {
    if (Date.now() - start > limitMs) assert.fail(`still running after ${limitMs} ms:\n${run.output()}`);
    await sleep(50);
  }
  return Date.now() - start;
}

/** Kills (SIGKILL) every process group a test started that still has a process alive. */
export function killGroups(): void {
  for (const child of started.splice(0)) {
    if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
  }
}
