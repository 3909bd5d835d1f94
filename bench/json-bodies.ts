// How long one large JSON body holds the event loop (every other client) while it is received and parsed:
// Fastify's own parser against Vitrine's yielding parser, side by side in one run, on the same bodies, over
// real HTTP (curl sends, so the client costs this process nothing). The route only answers; the database work
// of the bulk routes is measured in bench/materials.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { promisify } from 'node:util';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerJsonBodyParser } from '../src/http/json-body-parser.ts';

const run = promisify(execFile);
const BODY_LIMIT = 32 * 1024 * 1024;

const BODIES: Record<string, () => string> = {
  '100,000 ids of 200 characters (20 MB)': () =>
    JSON.stringify({
      group_ids: Array.from({ length: 100_000 }, (_, index) => `model:${index}`.padEnd(200, 'x')),
    }),
  '16 M nested arrays (32 MB)': () => '{"group_ids":' + '['.repeat(16_000_000) + ']'.repeat(16_000_000) + '}',
  '5 M nested objects (30 MB)': () => '{"a":'.repeat(5_000_000) + '1' + '}'.repeat(5_000_000),
  'one object of 2 M members (25 MB)': () =>
    '{' + Array.from({ length: 2_000_000 }, (_, index) => `"k${index}":1`).join(',') + '}',
};

async function server(yielding: boolean): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ bodyLimit: BODY_LIMIT });
  if (yielding) registerJsonBodyParser(app);
  app.post('/bulk', async () => ({ ok: true }));
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: `${address}/bulk` };
}

/** Sends the file with curl and reports the answer and the longest event-loop delay meanwhile. */
async function measure(
  url: string,
  file: string,
): Promise<{ status: string; totalMs: number; maxDelayMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  const started = performance.now();
  const { stdout } = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code}',
    '-H',
    'content-type: application/json',
    '--data-binary',
    `@${file}`,
    url,
  ]);
  histogram.disable();
  return { status: stdout, totalMs: performance.now() - started, maxDelayMs: histogram.max / 1e6 };
}

const folder = mkdtempSync(path.join(tmpdir(), 'vitrine-bench-json-'));
const fastify = await server(false);
const vitrine = await server(true);
try {
  console.log('| body | parser | answer | total ms | longest event-loop delay ms |');
  console.log('| --- | --- | --- | ---: | ---: |');
  for (const [name, make] of Object.entries(BODIES)) {
    const file = path.join(folder, 'body.json');
    writeFileSync(file, make());
    for (const [label, target] of [
      ['Fastify default', fastify],
      ['Vitrine yielding', vitrine],
    ] as const) {
      const result = await measure(target.url, file);
      console.log(
        `| ${name} | ${label} | ${result.status} | ${result.totalMs.toFixed(0)} | ${result.maxDelayMs.toFixed(0)} |`,
      );
    }
  }
} finally {
  await fastify.app.close();
  await vitrine.app.close();
  rmSync(folder, { recursive: true, force: true });
}
