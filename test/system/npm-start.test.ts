import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { after, describe, it } from 'node:test';
import { REPO, freePort, sleep, tempDir } from './service-process.ts';

interface NpmStart {
  child: ChildProcess;
  port: number;
  exited: Promise<number | null>;
  output(): string;
}

const started: ChildProcess[] = [];

/** Runs `npm start` in its own process group, as a terminal would, and waits until it serves. */
async function npmStart(): Promise<NpmStart> {
  const port = await freePort();
  const child = spawn('npm', ['start'], {
    cwd: REPO,
    detached: true,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? os.tmpdir(),
      PORT: String(port),
      DATA_DIR: tempDir('npm-start'),
      API_TOKEN: 'npm-start-token',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 240_000;
  while (!/Vitrine is running at/.test(output)) {
    if (child.exitCode !== null) assert.fail(`npm start exited early:\n${output}`);
    if (Date.now() > deadline) assert.fail(`npm start did not start:\n${output}`);
    await sleep(100);
  }
  return { child, port, exited, output: () => output };
}

/** True while any process of the group led by `pid` is alive. */
function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** True while something accepts connections on the port. */
function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Milliseconds until every process of the group is gone and the port is free; fails after `limitMs`. */
async function timeUntilGone(run: NpmStart, limitMs: number): Promise<number> {
  const start = Date.now();
  while (groupAlive(run.child.pid!) || (await portOpen(run.port))) {
    if (Date.now() - start > limitMs) assert.fail(`still running after ${limitMs} ms:\n${run.output()}`);
    await sleep(50);
  }
  return Date.now() - start;
}

void describe('npm start', () => {
  after(() => {
    for (const child of started) {
      if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
    }
  });

  void it('stops everything within 5 s when its own pid gets SIGTERM', async () => {
    const run = await npmStart();
    const response = await fetch(`http://127.0.0.1:${run.port}/health`);
    assert.equal(response.status, 200);
    process.kill(run.child.pid!, 'SIGTERM');
    const ms = await timeUntilGone(run, 5_000);
    assert.ok(ms <= 5_000, `stopped after ${ms} ms`);
  });

  void it('exits 0 on Ctrl-C (SIGINT to the whole process group), without a forced exit', async () => {
    const run = await npmStart();
    process.kill(-run.child.pid!, 'SIGINT');
    await timeUntilGone(run, 5_000);
    assert.equal(await run.exited, 0, run.output());
  });
});
