import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SAMPLE_MODELS } from '../helpers/sample-models.ts';
import { CHECKOUT_ROOT } from '../helpers/checkout-root.ts';
import { cliArguments } from '../helpers/cli-arguments.ts';

/** The checkout's root, with a separator at the end. */
export const REPO = CHECKOUT_ROOT + path.sep;

/** The sample models, read-only. */
export const MODELS = SAMPLE_MODELS;

/** How a child process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A `vitrine` command running as a child process. */
export interface ServiceProcess {
  child: ChildProcess;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Settles when the process has exited. */
  exited: Promise<Exit>;
  /** Resolves with the first stdout match of `pattern`, failing if the process exits first or after `timeoutMs`. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

// Every child still alive when a suite ends is killed, so a failing test leaves no service behind.
const children = new Set<ChildProcess>();

/**
 * Starts `vitrine <command>` (test/helpers/cli-arguments.ts) with the given settings on top of a clean environment,
 * in the repository or in `cwd` (where a `.env` may lie), with `nodeArgs` added to node's own options.
 */
export function runCli(
  command: string,
  env: Record<string, string>,
  cwd = REPO,
  nodeArgs: string[] = [],
): ServiceProcess {
  const args = [...cliArguments(nodeArgs), command];
  const child = spawn(process.execPath, args, {
    cwd,
    // Only what node needs from the outer environment: a developer's own DATABASE_URL or API_TOKEN must not leak in.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? os.tmpdir(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  let ended = false;
  void exited.then(() => (ended = true));

  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    async waitForOutput(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (ended) assert.fail(`vitrine ${command} exited before printing ${pattern}:\n${stdout}\n${stderr}`);
        if (Date.now() > deadline)
          assert.fail(`vitrine ${command} printed no ${pattern}:\n${stdout}\n${stderr}`);
        await sleep(50);
      }
    },
  };
}

/** Kills every child a test started and that is still running. */
export async function killChildren(): Promise<void> {
  const alive = [...children];
  const gone = alive.map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of alive) child.kill('SIGKILL');
  await Promise.all(gone);
}

/** Resolves with the exit of a process, failing if it takes longer than `timeoutMs`. */
export async function exitWithin(service: ServiceProcess, timeoutMs: number): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still running after ${timeoutMs} ms:\n${service.stderr()}`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([service.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A new empty folder for one service's DATA_DIR. */
export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `vitrine-${prefix}-`));
}

/** Polls `GET /health` until it answers 200. */
export async function waitForHealth(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(`${url}/health`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) assert.fail(`${url}/health did not answer within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** The model fields the system tests look at. */
export interface ModelView {
  id: string;
  status: string;
  progress: number;
  error: string | null;
  model_url: string | null;
  triangle_count: number | null;
  lods: { level: number; url: string; triangle_count: number }[];
}

/** Uploads a model file through `POST /api/models`. */
export async function uploadModel(url: string, token: string, file: string): Promise<ModelView> {
  const form = new FormData();
  form.append('file', new Blob([fs.readFileSync(file)]), path.basename(file));
  const response = await fetch(`${url}/api/models`, {
    method: 'POST',
    headers: { 'x-api-token': token },
    body: form,
  });
  const body = (await response.json()) as { data: ModelView };
  assert.equal(response.status, 201, JSON.stringify(body));
  return body.data;
}

/** Reads a model through `GET /api/models/:id`. */
export async function readModel(url: string, token: string, id: string): Promise<ModelView> {
  const response = await fetch(`${url}/api/models/${id}`, { headers: { 'x-api-token': token } });
  const body = (await response.json()) as { data: ModelView };
  assert.equal(response.status, 200, JSON.stringify(body));
  return body.data;
}

/** Polls a model until `check` holds, failing with its last state after `timeoutMs`. */
export async function waitForModel(
  url: string,
  token: string,
  id: string,
  check: (model: ModelView) => boolean,
  timeoutMs: number,
  pollMs = 100,
): Promise<ModelView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const model = await readModel(url, token, id);
    if (check(model)) return model;
    if (Date.now() > deadline) assert.fail(`model ${id} stayed ${JSON.stringify(model)}`);
    await sleep(pollMs);
  }
}

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
