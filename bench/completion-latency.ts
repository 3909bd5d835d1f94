// How long the service keeps other clients waiting while a model of many parts converts and completes: `vitrine
// start` on its defaults (SQLite, in-process queue) converts a generated OBJ of N distinct boxes, one part each,
// while two clients ask every 50 ms, one for the viewer's page (no database) and one for the model list (the
// catalog's database connection, which the completing transaction holds). Prints each client's longest waits and
// when they came, against the conversion's log of when it finished.
// Run: nice npx tsx bench/completion-latency.ts [parts]     (default 100000)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { manyPartsObj } from '../test/fixtures/many-parts-obj.ts';
import {
  freePort,
  killChildren,
  readModel,
  runCli,
  sleep,
  tempDir,
  uploadModel,
  waitForHealth,
} from '../test/system/service-process.ts';

const PARTS = Number(process.argv[2] ?? 100_000);
const TOKEN = 'completion-latency-bench-token-0123';
const ASK_EVERY_MS = 50;
const WORST_SHOWN = 4;

/** One answered request: when it was asked, ms after the upload started, and how long the answer took. */
interface Wait {
  at: number;
  took: number;
}

/** Asks `url` every {@link ASK_EVERY_MS} until `stop()` is true; resolves with every wait. */
async function askRepeatedly(
  url: string,
  headers: Record<string, string>,
  start: number,
  stop: () => boolean,
) {
  const waits: Wait[] = [];
  while (!stop()) {
    const asked = Date.now();
    await fetch(url, { headers })
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
    waits.push({ at: asked - start, took: Date.now() - asked });
    await sleep(ASK_EVERY_MS);
  }
  return waits;
}

const dataDir = tempDir('completion-latency');
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const service = runCli('start', {
  PORT: String(port),
  DATA_DIR: dataDir,
  API_TOKEN: TOKEN,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
});
let done = false;
try {
  await service.waitForOutput(/Vitrine is running at/, 120_000);
  await waitForHealth(url);
  const file = path.join(dataDir, `boxes-${PARTS}.obj`);
  writeFileSync(file, manyPartsObj({ groups: PARTS, kind: 'distinct' }));
  const start = Date.now();
  const page = askRepeatedly(`${url}/`, {}, start, () => done);
  const list = askRepeatedly(`${url}/api/models?limit=1`, { 'x-api-token': TOKEN }, start, () => done);
  const { id } = await uploadModel(url, TOKEN, file);
  let status = 'pending';
  while (status !== 'completed' && status !== 'failed') {
    await sleep(250);
    status = (await readModel(url, TOKEN, id)).status;
  }
  const finished = Date.now() - start;
  done = true;
  // The log goes out asynchronously: the line of the completion a moment after the status.
  await sleep(1_000);
  const converted = service
    .stdout()
    .split('\n')
    .map((line) => {
      try {
        return JSON.parse(line) as { msg?: string; time?: number };
      } catch {
        return {};
      }
    })
    .find((entry) => entry.msg === 'model converted');
  console.log(
    `${PARTS.toLocaleString('en')} distinct parts: ${status} after ${(finished / 1000).toFixed(1)} s` +
      (converted?.time ? `, logged converted at ${((converted.time - start) / 1000).toFixed(1)} s` : ''),
  );
  console.log('\n| client | longest waits, s (asked at, s) |\n|---|---|');
  for (const [name, waits] of [
    ['the viewer page', await page],
    ['the model list', await list],
  ] as const) {
    const worst = [...waits].sort((a, b) => b.took - a.took).slice(0, WORST_SHOWN);
    const cells = worst.map((wait) => `${(wait.took / 1000).toFixed(2)} (${(wait.at / 1000).toFixed(1)})`);
    console.log(`| ${name} | ${cells.join(', ')} |`);
  }
  if (status !== 'completed') process.exitCode = 1;
} finally {
  // The two clients stop asking whatever ended the run, so the process can exit.
  done = true;
  service.child.kill('SIGTERM');
  await Promise.race([service.exited, sleep(20_000)]);
  await killChildren();
}
