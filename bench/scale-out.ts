// Conversions per minute of N copies of a sample model (10 barrel.glb unless `tsx bench/scale-out.ts <N> <path under
// ../shared/models>`), uploaded at once, on (a) `vitrine start` with its embedded defaults, (b) `serve` + 1 `worker` and (c) `serve` + 2 `worker`
// processes on PostgreSQL, Redis and S3 (s3rver). Needs TEST_DATABASE_URL and TEST_REDIS_URL, as the tests do.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  MODELS,
  freePort,
  killChildren,
  runCli,
  tempDir,
  uploadModel,
  waitForHealth,
  waitForModel,
} from '../test/system/service-process.ts';
import { startBackingServices } from './backing-services.ts';

const TOKEN = 'scale-out-bench-token';
const count = Number(process.argv[2] ?? 10);
const MODEL = path.join(MODELS, process.argv[3] ?? 'glb/barrel.glb');

/** One setup: the commands it runs and the settings they share. */
interface Setup {
  label: string;
  command: string;
  workers: number;
  env: () => Promise<{ env: Record<string, string>; dispose: () => Promise<void> }>;
}

const scaled = (workers: number): Setup => ({
  label: `serve + ${workers} worker${workers > 1 ? 's' : ''}, PostgreSQL + Redis + S3`,
  command: `vitrine serve & ${Array(workers).fill('vitrine worker').join(' & ')}`,
  workers,
  env: async () => {
    const services = await startBackingServices('bench');
    return { env: services.env, dispose: services.dispose };
  },
});
const SETUPS: Setup[] = [
  {
    label: 'start: SQLite, local files, in-process queue',
    command: 'vitrine start',
    workers: 0,
    env: async () => ({ env: {}, dispose: async () => {} }),
  },
  scaled(1),
  scaled(2),
];

/** Runs one setup: uploads every copy at once and times them until all are converted. */
async function measure(setup: Setup): Promise<string> {
  const { env: shared, dispose } = await setup.env();
  const folders: string[] = [];
  const settings = (extra: Record<string, string> = {}) => {
    const dataDir = tempDir('bench-scale');
    folders.push(dataDir);
    return { DATA_DIR: dataDir, API_TOKEN: TOKEN, ...shared, ...extra };
  };
  try {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    runCli(setup.workers === 0 ? 'start' : 'serve', settings({ PORT: String(port) }));
    const workers = Array.from({ length: setup.workers }, () =>
      runCli('worker', settings({ LOG_LEVEL: 'info' })),
    );
    await Promise.all(workers.map((worker) => worker.waitForOutput(/worker started/, 120_000)));
    await waitForHealth(url);
    // The workers are up once each has said so; warm-up (threads loading their WebAssembly) counts in the time.
    const started = performance.now();
    const models = [];
    for (let n = 0; n < count; n++) models.push(await uploadModel(url, TOKEN, MODEL));
    for (const model of models) {
      const done = await waitForModel(
        url,
        TOKEN,
        model.id,
        (m) => m.status === 'completed' || m.status === 'failed',
        600_000,
        100,
      );
      if (done.status !== 'completed') throw new Error(`${model.id} failed: ${done.error}`);
    }
    const seconds = (performance.now() - started) / 1000;
    const load = os
      .loadavg()
      .map((value) => value.toFixed(2))
      .join(' / ');
    return `| ${setup.label} | ${path.basename(MODEL)} | \`${setup.command}\` | ${count} | ${seconds.toFixed(1)} s | ${((count / seconds) * 60).toFixed(1)} | ${load} |`;
  } finally {
    await killChildren();
    await dispose();
    for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
  }
}

const rows: string[] = [];
for (const setup of SETUPS) rows.push(await measure(setup));
process.stdout.write(
  `| setup | model | command | models | time | conversions / min | load average after (1 / 5 / 15 min) |\n` +
    `|---|---|---|---|---|---|---|\n${rows.join('\n')}\n\n` +
    `${os.cpus().length} cores, ${os.cpus()[0]?.model ?? 'unknown CPU'}, node ${process.version}\n`,
);
process.exit(0);
