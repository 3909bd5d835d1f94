// `npm run test:fast`: the inner loop, a fraction of `npm test`. Unit and API tests on SQLite only, without the system
// tests (child processes, npm start), the browser tests and the importers' fidelity runs over every sample
// model; `npm test` runs everything.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Folders whose tests start processes or a browser, or convert every sample model: left to `npm test`. */
const SLOW_FOLDERS = new Set(['system', 'e2e', 'importers', 'render']);
/** Suites that need a Redis server (TEST_REDIS_URL), which they fail without: left to `npm test`. */
const NEEDS_REDIS = /(redis|bullmq)[^/]*\.test\.ts$/;

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return dir === 'test' && SLOW_FOLDERS.has(entry.name) ? [] : testFiles(full);
    return entry.name.endsWith('.test.ts') && !NEEDS_REDIS.test(entry.name) ? [full] : [];
  });
}

const env = { ...process.env };
// SQLite only: the PostgreSQL and Redis runs belong to the whole suite.
delete env.TEST_DATABASE_URL;
delete env.TEST_REDIS_URL;
const files = testFiles('test').sort();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', ...files], {
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
