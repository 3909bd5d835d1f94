import assert from 'node:assert/strict';
import fs from 'node:fs';
import { afterEach, describe, it, type TestContext } from 'node:test';
import { freePort, tempDir } from './service-process.ts';
import { killGroups, spawnGroup, timeUntilGone, waitForGroupOutput, type GroupRun } from './process-group.ts';

// What a process manager does to the command it started: SIGTERM to that one pid, and nothing else. Under `npx`
// the pid is npm's, which forwards the signal only to the shell it runs vitrine through (see src/parent-exit.ts).
void describe('vitrine stops on SIGTERM to the pid that started it', () => {
  const dataDirs: string[] = [];

  afterEach(() => {
    killGroups();
    for (const dir of dataDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Settings for one run on SQLite defaults in a new data folder. */
  function settings(port: number): Record<string, string> {
    const dir = tempDir('signals');
    dataDirs.push(dir);
    return { DATA_DIR: dir, PORT: String(port), API_TOKEN: 'signals-token', LOG_LEVEL: 'info' };
  }

  /** Sends SIGTERM to the run's own pid and checks that its whole group and the port are gone within 5 s. */
  async function terminate(t: TestContext, run: GroupRun, port: number | undefined): Promise<void> {
    process.kill(run.child.pid!, 'SIGTERM');
    const ms = await timeUntilGone(run, port, 5_000);
    assert.ok(ms <= 5_000, `stopped after ${ms} ms`);
    t.diagnostic(`everything gone ${ms} ms after SIGTERM`);
  }

  for (const [name, command, args] of [
    ['npx vitrine serve', 'npx', ['vitrine', 'serve']],
    ['npm exec -- vitrine serve', 'npm', ['exec', '--', 'vitrine', 'serve']],
    ['npx vitrine start', 'npx', ['vitrine', 'start']],
    ['node bin/vitrine.js serve', process.execPath, ['bin/vitrine.js', 'serve']],
  ] as const) {
    void it(name, async (t) => {
      const port = await freePort();
      const run = spawnGroup(command, [...args], settings(port));
      await waitForGroupOutput(run, /Vitrine is running at/, 120_000);
      assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
      await terminate(t, run, port);
    });
  }

  void it('npx vitrine worker', async (t) => {
    const run = spawnGroup('npx', ['vitrine', 'worker'], settings(await freePort()));
    await waitForGroupOutput(run, /worker started/, 120_000);
    await terminate(t, run, undefined);
  });
});
