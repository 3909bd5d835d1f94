// `npm run test:fast`: the inner loop, a fraction of `npm test`. Unit and API tests on SQLite only, without the system
// tests (child processes, npm start), the browser tests and the importers' fidelity runs over every sample
// model; `npm test` runs everything.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Folders whose tests start processes or a browser, or convert every sample model: left to `npm test`. */
const SLOW_FOLDERS = new Set(['system', 'e2e', 'importers', 'render']);
/**
 * The pipeline's fidelity run over every sample model, as the importers' are, and a model of 100,000 parts stored
 * and read on each database (the better part of a minute): left to `npm test`.
 */
const SLOW_FILES = new Set([
  path.join('test', 'pipeline', 'fidelity.test.ts'),
  path.join('test', 'catalog', 'hundred-thousand-parts.test.ts'),
]);
/**
 * Suites that need a server besides SQLite: Redis (`testRedisUrl`) or PostgreSQL alone (`testPostgresUrl`), which
 * they fail without, or an S3 server they start (`startS3Server`): left to `npm test`.
 */
const NEEDS_SERVER = /\b(testRedisUrl|testPostgresUrl|startS3Server)\(/;

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return dir === 'test' && SLOW_FOLDERS.has(entry.name) ? [] : testFiles(full);
    if (!entry.name.endsWith('.test.ts') || SLOW_FILES.has(full)) return [];
    return NEEDS_SERVER.test(fs.readFileSync(full, 'utf8')) ? [] : [full];
  });
}

/** Test files in two groups of about the same size, one per core. */
function twoGroups(files: string[]): string[][] {
  const groups = [
    { files: [] as string[], bytes: 0 },
    { files: [] as string[], bytes: 0 },
  ];
  const bySize = files
    .map((file) => ({ file, bytes: fs.statSync(file).size }))
    .sort((a, b) => b.bytes - a.bytes);
  for (const { file, bytes } of bySize) {
    const smaller = groups[0].bytes <= groups[1].bytes ? groups[0] : groups[1];
    smaller.files.push(file);
    smaller.bytes += bytes;
  }
  return groups.map((group) => group.files.sort());
}

/** Runs one group's files in one test process; resolves with its report and whether every test passed. */
function runGroup(files: string[], env: NodeJS.ProcessEnv): Promise<{ output: string; passed: boolean }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--test', 'test/fast-group.ts'], {
      env: { ...env, FAST_TEST_FILES: JSON.stringify(files) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('close', (code) => resolve({ output, passed: code === 0 }));
  });
}

const env = { ...process.env };
// SQLite only: the PostgreSQL and Redis runs belong to the whole suite.
delete env.TEST_DATABASE_URL;
delete env.TEST_REDIS_URL;
// Two processes, one per core, each running its files one after another: a process per file spent about two
// seconds starting Node, the TypeScript loader and the app's modules, more than most files' tests take.
const results = await Promise.all(twoGroups(testFiles('test').sort()).map((files) => runGroup(files, env)));
for (const { output } of results) process.stdout.write(output);
process.exit(results.every((result) => result.passed) ? 0 : 1);
