// `npm test`: every test file, compiled (runner/compiled-tree.ts), in one `node --test` run, on SQLite and
// PostgreSQL. With no TEST_DATABASE_URL it starts an embedded PostgreSQL server for the run and removes it afterwards;
// suites needing what it cannot start (Redis without TEST_REDIS_URL, Chromium) are skipped outside CI and named in
// one line each. Arguments: `node --test` options (`--test-name-pattern=…`) and file filters (a file, a folder, or
// part of a path).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureViewerBuilt, viewerBuildIsStale } from './e2e/support/build-viewer.ts';
import { CHROMIUM, skipWithoutChromium } from './e2e/support/chromium.ts';
import { skipWithoutRedis } from './helpers/redis.ts';
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from './runner/embedded-postgres.ts';
import { allTestFiles, filesUsing, selectTestFiles } from './runner/test-files.ts';
import { browserFilesToRetry, failedFile } from './runner/browser-retry.ts';
import { createUsageFolder, usageSummary } from './runner/file-usage.ts';
import { compileTree, type CompiledTree } from './runner/compiled-tree.ts';

/** `node --test` options that take their value as the next argument. */
const OPTIONS_WITH_VALUE = new Set([
  '--test-name-pattern',
  '--test-skip-pattern',
  '--test-reporter',
  '--test-reporter-destination',
  '--test-concurrency',
  '--test-timeout',
]);

/** Splits the arguments into `node --test` options and file filters. */
function parseArguments(args: string[]): { options: string[]; filters: string[] } {
  const options: string[] = [];
  const filters: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('-')) filters.push(arg);
    else if (OPTIONS_WITH_VALUE.has(arg) && i + 1 < args.length) options.push(arg, args[++i]);
    else options.push(arg);
  }
  return { options, filters };
}

/**
 * Runs `node --test` on the checkout's test files compiled in `tree`; resolves with the exit code to pass on (128 +
 * signal number when killed).
 */
function runTests(
  tree: CompiledTree,
  options: string[],
  files: string[],
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const probe = pathToFileURL(tree.compiled('test/runner/file-usage-probe.ts')).href;
  const child = spawn(
    process.execPath,
    [
      '--enable-source-maps',
      '--import',
      probe,
      '--test',
      ...options,
      ...files.map((file) => tree.compiled(file)),
    ],
    { env, stdio: 'inherit' },
  );
  // A signal sent to the runner alone reaches the tests too; the runner stays to clean up after them.
  const forward = (signal: NodeJS.Signals) => void child.kill(signal);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`could not start the tests: ${error.message}`);
      resolve(1);
    });
    child.on('close', (code, signal) => {
      const signals: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
      resolve(code ?? 128 + (signal ? (signals[signal] ?? 0) : 0));
    });
  });
}

/**
 * Test files run side by side: most of a file's time is spent waiting (for a database, a worker thread, a child
 * process, a browser), so twice the cores keeps them busy. TEST_CONCURRENCY overrides it.
 */
function testConcurrency(env: NodeJS.ProcessEnv): number {
  const asked = Number(env.TEST_CONCURRENCY);
  return Number.isInteger(asked) && asked > 0 ? asked : 2 * os.availableParallelism();
}

const { options, filters } = parseArguments(process.argv.slice(2));
let files = selectTestFiles(allTestFiles(), filters);
const notes: string[] = [];
const count = (n: number) => `${n} ${n === 1 ? 'file' : 'files'}`;

// The browser suites take the longest; a run that must be shorter (CI's fresh-clone check) leaves them out.
if (process.env.TEST_SKIP_E2E === '1') {
  const e2e = files.filter((file) => file.startsWith('test/e2e/'));
  files = files.filter((file) => !e2e.includes(file));
  if (e2e.length > 0)
    notes.push(`End-to-end suites left out (${count(e2e.length)} in test/e2e): TEST_SKIP_E2E=1 is set`);
}
const redisFiles = filesUsing(files, 'skipWithoutRedis').length;
if (skipWithoutRedis && redisFiles > 0) {
  notes.push(
    `Redis suites skipped (${count(redisFiles)}): set TEST_REDIS_URL=redis://127.0.0.1:6379 to run them`,
  );
}
if (!process.env.TEST_REDIS_URL && !skipWithoutRedis && redisFiles > 0) {
  notes.push(`Redis suites failed for want of TEST_REDIS_URL (${count(redisFiles)}): CI=true runs them all`);
}
const browserFiles = filesUsing(files, 'skipWithoutChromium').length;
if (skipWithoutChromium && browserFiles > 0) {
  notes.push(
    `Browser suites skipped (${count(browserFiles)}): no Chromium at ${CHROMIUM}; apt-get install chromium (or set CHROMIUM_PATH) to run them`,
  );
}

// The browser suites run side by side and each builds a stale viewer; one build first keeps them from racing in web/dist.
const REPO = fileURLToPath(new URL('../', import.meta.url));
if (!skipWithoutChromium && browserFiles > 0 && viewerBuildIsStale(REPO)) {
  console.log('Viewer: web/dist is older than its sources; building it once for the browser suites');
  ensureViewerBuilt(REPO);
}

// The tests run compiled, with no loader hooks (test/runner/compiled-tree.ts); a suite that reads the sources
// themselves finds the checkout by TEST_CHECKOUT.
let tree: CompiledTree;
try {
  const started = Date.now();
  tree = await compileTree(REPO);
  console.log(`Tests: compiled into ${tree.root} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (error) {
  console.error(`the tests did not compile: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
const env: NodeJS.ProcessEnv = { ...process.env, TEST_CHECKOUT: REPO };
let postgres: EmbeddedPostgresServer | undefined;
if (env.TEST_DATABASE_URL) {
  console.log(`PostgreSQL: the server of TEST_DATABASE_URL (${new URL(env.TEST_DATABASE_URL).host})`);
} else {
  const started = Date.now();
  try {
    postgres = await startEmbeddedPostgres();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
  env.TEST_DATABASE_URL = postgres.url;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(
    `PostgreSQL: embedded server on port ${postgres.port} (started in ${seconds} s, removed after the run)`,
  );
}

const usage = createUsageFolder();
env.TEST_USAGE_DIR = usage.folder;
// Sample models converted once for the run and shared by the suites that read them (test/helpers/converted-samples.ts).
const conversions = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-test-conversions-'));
env.TEST_CONVERSION_CACHE = conversions;
if (!options.some((option) => option.startsWith('--test-concurrency'))) {
  options.push(`--test-concurrency=${testConcurrency(env)}`);
}
// Failed tests are listed again at the very end; a run that names its own reporters keeps only those.
const ownReporters = options.some((option) => option.startsWith('--test-reporter'));
/** The reporter options of a run whose failed tests are written to `failures`, a line each. */
function reporterOptions(failures: string): string[] {
  if (ownReporters) return [];
  const failureReporter = new URL('./runner/failure-reporter.mjs', import.meta.url).href;
  return [
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${failureReporter}`,
    `--test-reporter-destination=${failures}`,
  ];
}
/** The lines of a failures file, none when it was not written, each naming its file as the checkout does. */
function readLines(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const compiled = failedFile(line);
      return compiled ? line.replace(compiled, tree.source(compiled)) : line;
    });
}
const failures = path.join(usage.folder, 'failures.txt');
let code = 1;
let failed: string[] = [];
let retried: { files: string[]; firstFailures: string[] } | undefined;
try {
  code = await runTests(tree, [...options, ...reporterOptions(failures)], files, env);
  failed = readLines(failures);
  const again = code === 0 ? [] : browserFilesToRetry(failed);
  if (again.length > 0) {
    console.log(
      `Browser suites failed (${count(again.length)}); running them again, one at a time: ${again.join(', ')}`,
    );
    const retryFailures = path.join(usage.folder, 'failures-retry.txt');
    const retryOptions = options.filter((option) => !option.startsWith('--test-concurrency'));
    code = await runTests(
      tree,
      [...retryOptions, '--test-concurrency=1', ...reporterOptions(retryFailures)],
      again,
      env,
    );
    retried = { files: again, firstFailures: failed };
    failed = readLines(retryFailures);
  }
} finally {
  await postgres?.stop();
  fs.rmSync(conversions, { recursive: true, force: true });
  tree.remove();
}
// After the report, where they are read: where the time went, what this run did not cover, and what would run it.
const usages = usage.read().map((entry) => ({ ...entry, file: tree.source(entry.file) }));
for (const line of usageSummary(usages)) console.log(line);
if (env.TEST_USAGE_FILE) fs.writeFileSync(env.TEST_USAGE_FILE, JSON.stringify(usages, null, 1));
usage.remove();
for (const note of notes) console.log(note);
if (retried) {
  console.log(
    [
      `Run again on their own (${count(retried.files.length)}), ${code === 0 ? 'passed whole the second time' : 'failed again'}; the first run's failures:`,
      ...retried.firstFailures,
    ].join('\n'),
  );
}
if (failed.length > 0) console.log([`Failed tests (${failed.length}):`, ...failed].join('\n'));
process.exit(code);
