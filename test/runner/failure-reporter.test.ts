// The runner's list of failed tests: a real `node --test` run of a file with a failing test inside a suite.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const REPORTER = fileURLToPath(new URL('./failure-reporter.mjs', import.meta.url));

void describe('the failure reporter', () => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-failure-reporter-'));
  after(() => fs.rmSync(folder, { recursive: true, force: true }));

  void it('writes a line per failed test with its file, name and error, and none for its suite or a pass', async () => {
    const file = path.join(folder, 'sample.test.mjs');
    fs.writeFileSync(
      file,
      [
        "import assert from 'node:assert/strict';",
        "import { describe, it } from 'node:test';",
        "describe('outer', () => {",
        "  it('breaks', () => assert.equal(1, 2, 'one is not two'));",
        "  it('passes', () => {});",
        '});',
      ].join('\n'),
    );
    const out = path.join(folder, 'failures.txt');
    const run = promisify(execFile)(
      process.execPath,
      ['--test', `--test-reporter=${REPORTER}`, `--test-reporter-destination=${out}`, file],
      // Without the test context this process runs in, the child is a run of its own, not a part of this one.
      { cwd: folder, env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    await assert.rejects(run, 'the run fails');
    const lines = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean);
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, /^ {2}sample\.test\.mjs › breaks: one is not two\b/);
  });
});
