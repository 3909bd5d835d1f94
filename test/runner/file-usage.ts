// The runner's summary of where a run's time went: each test file's wall and processor time, as the probe
// (file-usage-probe.ts) wrote them, and the slowest files, so a suite that grows slow is seen in every run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What the probe recorded for one test file. */
export interface FileUsage {
  file: string;
  wallSeconds: number;
  /** The test process's own processor time. */
  cpuSeconds: number;
  /** Processor time of the children it waited for: servers, converters and browsers it started. */
  childCpuSeconds: number;
}

/** A folder for the probes of one run, and how to read and remove it. */
export function createUsageFolder(): { folder: string; read(): FileUsage[]; remove(): void } {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-test-usage-'));
  return {
    folder,
    read: () =>
      fs
        .readdirSync(folder)
        .filter((name) => name.endsWith('.json'))
        .map((name) => JSON.parse(fs.readFileSync(path.join(folder, name), 'utf8')) as FileUsage),
    remove: () => fs.rmSync(folder, { recursive: true, force: true }),
  };
}

/** Lines telling the run's processor time in all and its `count` slowest files by wall time. */
export function usageSummary(usages: FileUsage[], count = 10): string[] {
  if (usages.length === 0) return [];
  const cpu = (usage: FileUsage) => usage.cpuSeconds + usage.childCpuSeconds;
  const total = usages.reduce((sum, usage) => sum + cpu(usage), 0);
  const slowest = [...usages].sort((a, b) => b.wallSeconds - a.wallSeconds).slice(0, count);
  return [
    `Test files: ${usages.length}, processor time ${(total / 60).toFixed(1)} min in all; the slowest (wall s, processor s):`,
    ...slowest.map(
      (usage) =>
        `  ${usage.wallSeconds.toFixed(1).padStart(6)} ${cpu(usage).toFixed(1).padStart(6)}  ${usage.file}`,
    ),
  ];
}
