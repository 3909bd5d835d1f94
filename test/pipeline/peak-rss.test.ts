import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { it } from 'node:test';
import { peakRssBytes } from '../../src/pipeline/peak-rss.ts';

const MIB = 1024 * 1024;

void it("a process's peak resident memory is its own, not its parent's at its start", () => {
  // This process grows by 400 MiB (every page written), then starts a small process that reports its peak.
  const held = Buffer.alloc(400 * MIB, 1);
  assert.ok(peakRssBytes() >= 400 * MIB, 'the parent’s own peak counts what it holds');
  const module = new URL('../../src/pipeline/peak-rss.ts', import.meta.url).href;
  const child = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { peakRssBytes } = await import(${JSON.stringify(module)}); process.stdout.write(String(peakRssBytes()));`,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(child.status, 0, child.stderr);
  const childPeak = Number(child.stdout);
  assert.ok(childPeak > 10 * MIB, `a plausible peak: ${childPeak}`);
  assert.ok(
    childPeak < 200 * MIB,
    `the child reports ${Math.round(childPeak / MIB)} MiB, not its parent's size`,
  );
  assert.equal(held[held.length - 1], 1);
});
