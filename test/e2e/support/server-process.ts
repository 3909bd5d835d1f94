// Starts the real server as a child process on a free port and stops it again, for browser tests.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { cliArguments } from '../../helpers/cli-arguments.ts';

/** A server started by {@link startServer}. */
export interface RunningServer {
  baseUrl: string;
  /** Everything the process printed, for failure messages. */
  output: () => string;
  stop: () => Promise<void>;
}

/** Asks the OS for a port nobody listens on. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const address = probe.address();
  probe.close();
  await once(probe, 'close');
  if (!address || typeof address === 'string') throw new Error('could not pick a free port');
  return address.port;
}

/**
 * Runs `vitrine start` (or `serve`; test/helpers/cli-arguments.ts) in `repoDir`, serving the viewer that checkout
 * built, and waits until /health answers.
 */
export async function startServer(options: {
  repoDir: string;
  dataDir: string;
  apiToken: string;
  timeoutMs: number;
  /** More environment for the server (a shared DATABASE_URL, say). */
  env?: Record<string, string>;
  /** `start` (API and a worker, the default) or `serve` (API only). */
  command?: 'start' | 'serve';
}): Promise<RunningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...cliArguments(), options.command ?? 'start'], {
    cwd: options.repoDir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
      API_TOKEN: options.apiToken,
      PUBLIC_BASE_URL: '',
      // The compiled copy's web/dist is a link made when the tests were compiled, before a suite may have built it.
      WEB_DIST_DIR: join(options.repoDir, 'web', 'dist'),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const server: RunningServer = { baseUrl, output: () => output, stop: () => stopChild(child) };
  try {
    await waitForHealth(baseUrl, child, options.timeoutMs);
  } catch (error) {
    await server.stop();
    throw new Error(`${(error as Error).message}\n--- server output ---\n${output.slice(-4000)}`);
  }
  return server;
}

async function waitForHealth(baseUrl: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited early with code ${child.exitCode}`);
    try {
      const response = await fetch(`${baseUrl}/health`);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`server did not answer ${baseUrl}/health within ${timeoutMs} ms`);
}

/** SIGTERM first so the server shuts down gracefully; SIGKILL if it takes longer than 10 s. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
  await exited;
  clearTimeout(timer);
}
