import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { freePort, tempDir } from './service-process.ts';
import { killGroups, spawnGroup, timeUntilGone, waitForGroupOutput, type GroupRun } from './process-group.ts';

/** Runs `npm start` in its own process group, as a terminal would, and waits until it serves. */
async function npmStart(): Promise<GroupRun & { port: number }> {
  const port = await freePort();
  const run = spawnGroup('npm', ['start'], {
    PORT: String(port),
    DATA_DIR: tempDir('npm-start'),
    API_TOKEN: 'npm-start-token',
    LOG_LEVEL: 'warn',
  });
  await waitForGroupOutput(run, /Vitrine is running at/, 240_000);
  return { ...run, port };
}

void describe('npm start', () => {
  after(killGroups);

  void it('stops everything within 5 s when its own pid gets SIGTERM', async () => {
    const run = await npmStart();
    const response = await fetch(`http://127.0.0.1:${run.port}/health`);
    assert.equal(response.status, 200);
    process.kill(run.child.pid!, 'SIGTERM');
    const ms = await timeUntilGone(run, run.port, 5_000);
    assert.ok(ms <= 5_000, `stopped after ${ms} ms`);
  });

  void it('builds nothing on a second start of an unchanged checkout, and says so', async () => {
    const first = await npmStart();
    process.kill(first.child.pid!, 'SIGTERM');
    await timeUntilGone(first, first.port, 5_000);
    const second = await npmStart();
    assert.match(second.output(), /^Up to date, not rebuilt: server \(dist\/\), viewer \(web\/dist\/\)$/m);
    assert.doesNotMatch(second.output(), /^Building the /m);
    assert.equal((await fetch(`http://127.0.0.1:${second.port}/health`)).status, 200);
  });

  void it('exits 0 on Ctrl-C (SIGINT to the whole process group), without a forced exit', async () => {
    const run = await npmStart();
    process.kill(-run.child.pid!, 'SIGINT');
    await timeUntilGone(run, run.port, 5_000);
    assert.equal(await run.exited, 0, run.output());
  });
});
