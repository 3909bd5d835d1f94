// Material service benchmark, every figure measured over HTTP against the real app in one run:
//   - GET /api/v1/materials/:id requests/s as a ratio to a bare node:http server sending the same JSON from memory;
//   - binding 100,000 group ids in one call; looking up 100,000 group ids in one call.
// Usage: npx tsx bench/materials.ts   (SQLite; PostgreSQL when BENCH_DATABASE_URL or TEST_DATABASE_URL is set)
// Tuning: BENCH_SECONDS (10), BENCH_CONNECTIONS (10), BENCH_RUNS (5).
// The servers run in a child process so the load generator does not share their event loop.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BULK = 100_000;
const TOKEN = 'bench-token-0123456789';
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

/** What the serving child tells the measuring parent. */
interface Servers {
  app: string;
  quietApp: string;
  bare: string;
  materialId: number;
  dialect: string;
}

if (process.argv.includes('--serve')) await serve();
else await measure();

// ---------------------------------------------------------------------------------------------- child

async function serve(): Promise<void> {
  const { loadConfig } = await import('../src/config.ts');
  const { startServer } = await import('../src/server.ts');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-bench-'));
  const database = POSTGRES_URL ? await createPostgresDatabase(POSTGRES_URL) : undefined;
  const databaseUrl = database?.url ?? `sqlite:${path.join(dataDir, 'bench.db')}`;

  // The server exactly as `vitrine serve` starts it. The default log level writes a line per request, so a quieter
  // second instance on the same database is measured too: both are real set-ups.
  const start = (logLevel: string) =>
    startServer(
      loadConfig({
        DATA_DIR: dataDir,
        DATABASE_URL: databaseUrl,
        API_TOKEN: TOKEN,
        LOG_LEVEL: logLevel,
        PORT: '0',
      }),
      { withWorker: false },
    );
  const app = await start('info');
  const quietApp = await start('warn');
  const headers = { 'x-api-token': TOKEN };
  const created = await app.app.inject({
    method: 'POST',
    url: '/api/v1/materials',
    headers: { ...headers, 'content-type': 'application/json' },
    payload: {
      name: 'Brushed steel',
      diffuse_r: 180,
      diffuse_g: 182,
      diffuse_b: 190,
      metallic: 1,
      roughness: 0.3,
    },
  });
  const materialId = (JSON.parse(created.body) as { data: { id: number } }).data.id;
  const body = (await app.app.inject({ url: `/api/v1/materials/${materialId}`, headers })).body;

  const bare = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(body);
  });
  await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
  const servers: Servers = {
    app: app.url,
    quietApp: quietApp.url,
    bare: `http://127.0.0.1:${(bare.address() as AddressInfo).port}`,
    materialId,
    dialect: database ? 'postgres' : 'sqlite',
  };
  process.send?.(servers);
  process.once('message', async () => {
    bare.close();
    await app.close();
    await quietApp.close();
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

async function createPostgresDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `vitrine_bench_${randomBytes(6).toString('hex')}`;
  const admin = async (statement: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}

// --------------------------------------------------------------------------------------------- parent

async function measure(): Promise<void> {
  const child: ChildProcess = fork(import.meta.filename, ['--serve'], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const servers = await new Promise<Servers>((resolve, reject) => {
    child.once('message', (message) => resolve(message as Servers));
    child.once('exit', (code) => reject(new Error(`the serving process exited with ${code}`)));
  });
  const loadBefore = os.loadavg()[0];
  try {
    const rows = [...(await measureReads(servers)), ...(await measureBulk(servers))];
    const engine = servers.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite';
    console.log(
      `\nMaterial service on ${engine}, Node ${process.version}, ${os.cpus().length} cores; ` +
        `autocannon ${CONNECTIONS} connections × ${SECONDS} s per run; bulk figures are medians of ${RUNS} runs ` +
        `(fastest–slowest); 1-minute load average ${loadBefore.toFixed(1)} at the start, ` +
        `${os.loadavg()[0].toFixed(1)} at the end.\n`,
    );
    console.log('| measure | result | goal | met |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  } finally {
    child.send('stop');
  }
}

/** Requests/s of the app and of the bare server, alternated (bare, app, app, bare) so drift on a noisy machine cancels. */
async function measureReads(servers: Servers): Promise<string[][]> {
  const path = `/api/v1/materials/${servers.materialId}`;
  const headers = { 'x-api-token': TOKEN };
  const load = async (base: string, seconds = SECONDS) => {
    const result = await autocannon({
      url: `${base}${path}`,
      connections: CONNECTIONS,
      duration: seconds,
      headers,
    });
    if (result.errors || result.timeouts || result.non2xx) {
      throw new Error(
        `${base}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
      );
    }
    return result.requests.average;
  };
  for (const base of [servers.bare, servers.app, servers.quietApp]) await load(base, 3);

  const bare: number[] = [];
  const app: number[] = [];
  const quiet: number[] = [];
  for (const order of [
    ['bare', 'app', 'quiet'],
    ['quiet', 'app', 'bare'],
  ]) {
    for (const which of order) {
      if (which === 'bare') bare.push(await load(servers.bare));
      if (which === 'app') app.push(await load(servers.app));
      if (which === 'quiet') quiet.push(await load(servers.quietApp));
    }
  }
  const bareRate = mean(bare);
  const rate = (values: number[]) => `${Math.round(mean(values)).toLocaleString('en')} req/s`;
  const ratio = (values: number[]) => mean(values) / bareRate;
  return [
    ['bare node:http, same JSON from memory', rate(bare), 'baseline', ''],
    ['GET /api/v1/materials/:id, LOG_LEVEL=info (default)', rate(app), '', ''],
    ['GET /api/v1/materials/:id, LOG_LEVEL=warn', rate(quiet), '', ''],
    ['ratio app / bare, LOG_LEVEL=info', ratio(app).toFixed(2), '≥ 0.5', met(ratio(app) >= 0.5)],
    ['ratio app / bare, LOG_LEVEL=warn', ratio(quiet).toFixed(2), '≥ 0.5', met(ratio(quiet) >= 0.5)],
  ];
}

/** Bind and lookup of 100,000 group ids, end to end over HTTP (request sent to response body read). */
async function measureBulk(servers: Servers): Promise<string[][]> {
  const materials: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const created = await call(servers.app, 'POST', '/api/v1/materials', { name: `bulk ${i}` });
    materials.push((created.json as { data: { id: number } }).data.id);
  }
  // Each run binds 100,000 new ids, as the upload of a new model would; a warm-up run goes first.
  const bindTimes: number[] = [];
  const allIds: string[][] = [];
  for (let run = 0; run <= RUNS; run++) {
    const ids = Array.from({ length: BULK }, (_, i) => `model-${run}:${i}`);
    allIds.push(ids);
    const { ms } = await call(servers.app, 'POST', `/api/v1/materials/${materials[run]}/bindings`, {
      group_ids: ids,
    });
    if (run > 0) bindTimes.push(ms);
  }
  // Half the looked-up ids are bound (to several materials), half are not: the default entry fills them in.
  const lookupIds = Array.from(
    { length: BULK },
    (_, i) => (i % 2 === 0 ? allIds[1 + (i % RUNS)]![i] : `unbound-${i}`)!,
  );
  const lookupTimes: number[] = [];
  let entries = 0;
  for (let run = 0; run <= RUNS; run++) {
    const { ms, json } = await call(servers.app, 'POST', '/api/v1/groups/materials', {
      group_ids: lookupIds,
      include_default: true,
    });
    entries = (json as { data: unknown[] }).data.length;
    if (run > 0) lookupTimes.push(ms);
  }
  if (entries !== BULK) throw new Error(`lookup answered ${entries} entries, expected ${BULK}`);
  // Moving 100,000 bound ids to another material rewrites every row. It runs after the lookups: on PostgreSQL
  // the dead row versions it leaves slow index reads until autovacuum has passed.
  const moveTimes: number[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const { ms } = await call(servers.app, 'POST', `/api/v1/materials/${materials[0]}/bindings`, {
      group_ids: allIds[run],
    });
    moveTimes.push(ms);
  }
  const lookupGoal = servers.dialect === 'postgres' ? 1000 : 500;
  return [
    ['bind 100,000 new group_ids in one call', seconds(bindTimes), '≤ 1 s', met(median(bindTimes) <= 1000)],
    [
      'move 100,000 bound group_ids to another material',
      seconds(moveTimes),
      '≤ 1 s',
      met(median(moveTimes) <= 1000),
    ],
    [
      'lookup 100,000 group_ids (include_default)',
      seconds(lookupTimes),
      `≤ ${lookupGoal / 1000} s`,
      met(median(lookupTimes) <= lookupGoal),
    ],
  ];
}

async function call(base: string, method: string, url: string, body: unknown) {
  const start = performance.now();
  const response = await fetch(`${base}${url}`, {
    method,
    headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const ms = performance.now() - start;
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text.slice(0, 200)}`);
  return { ms, json: JSON.parse(text) as unknown };
}

function mean(values: number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function seconds(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const s = (ms: number) => (ms / 1000).toFixed(3);
  return `${s(median(values))} s (${s(sorted[0]!)}–${s(sorted[sorted.length - 1]!)})`;
}

function met(ok: boolean): string {
  return ok ? 'yes' : '**no**';
}
