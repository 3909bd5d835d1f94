// Material service benchmark, every figure measured over HTTP against the real app, side by side in one run:
//   - GET /api/v1/materials/:id requests/s as a ratio to a bare node:http server sending the same JSON from memory
//     (SQLite) and to a bare node:http + pg server reading the row from PostgreSQL per request;
//   - bind of 100,000 new group ids in one call, and moving them to another material;
//   - lookup of 100,000 group ids, against a bare node:http server receiving the same request and sending the same
//     bytes from memory; its br and gzip sizes; PostgreSQL's lookup against SQLite's.
// Usage: nice npx tsx bench/materials.ts   (PostgreSQL too when BENCH_DATABASE_URL or TEST_DATABASE_URL is set)
// Tuning: BENCH_SECONDS (5), BENCH_CONNECTIONS (32), BENCH_RUNS (5), BENCH_LOOKUP_RUNS (15).
// Three processes: the apps in one child (the compiled service, built into dist/ first), the bare servers in
// another, the load generator in this one.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import type * as ConfigModule from '../src/config.ts';
import type * as ServerModule from '../src/server.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
// The patched lookups move a group between the second and third of the RUNS + 1 materials the binds create.
if (!(RUNS >= 2)) throw new Error(`BENCH_RUNS must be 2 or more, not ${process.env.BENCH_RUNS}`);
// Lookups vary more from one to the next than binds (a 30 MB transfer on a busy machine): more of them.
const LOOKUP_RUNS = Number(process.env.BENCH_LOOKUP_RUNS ?? 15);
const BULK = 100_000;
const TOKEN = 'bench-token-0123456789';
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
const MATERIAL = { name: 'Brushed steel', diffuse_r: 180, diffuse_g: 182, diffuse_b: 190, metallic: 1 };

/** One database's servers, as the parent puts them together from its two children. */
interface Engine {
  name: 'SQLite' | 'PostgreSQL';
  /** The app at LOG_LEVEL=info (the default) and at warn. */
  app: string;
  quietApp: string;
  /** The bare server the GET ratio compares with. */
  bare: string;
  bareLabel: string;
  materialId: number;
}

/** What the app child serves, per database. */
interface AppServers {
  name: Engine['name'];
  app: string;
  quietApp: string;
  materialId: number;
  /** The JSON the app answers for that material, which the bare SQLite reference sends from memory. */
  body: string;
}

/** What the bare child serves. */
interface BareServers {
  /** node:http sending the SQLite app's material JSON from memory. */
  sqlite: string;
  /** node:http + pg reading the row per request, when PostgreSQL is measured. */
  postgres?: string;
  /** Receives a POST body in full and answers with the bytes last given to `PUT /`. */
  transfer: string;
}

const role = process.argv[2];
if (role === '--serve-apps') await serveApps(process.argv[3]);
else if (role === '--serve-bare') await serveBare(JSON.parse(process.argv[3]!) as BareSettings);
else await measure();

// --------------------------------------------------------------------------------------------- children

/** Listens on a free loopback port; returns the base URL and registers the close. */
async function listenOn(server: http.Server, closers: (() => Promise<unknown>)[]): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Tells the parent what is served, then closes everything when the parent says so. */
function reportAndWait<T>(served: T, closers: (() => Promise<unknown>)[], cleanUp = () => {}): void {
  process.send?.(served);
  process.once('message', async () => {
    for (const close of closers) await close();
    cleanUp();
    process.exit(0);
  });
}

async function serveApps(postgresUrl: string | undefined): Promise<void> {
  // The compiled service, as `npm start` runs it (the parent has just built it).
  const { loadConfig } = (await import(compiled('config.js'))) as typeof ConfigModule;
  const { startServer } = (await import(compiled('server.js'))) as typeof ServerModule;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-bench-'));
  const closers: (() => Promise<unknown>)[] = [];

  // The server exactly as `vitrine serve` starts it, at the default log level and at warn, on one database.
  const startApps = async (
    name: Engine['name'],
    databaseUrl: string,
    folder: string,
  ): Promise<AppServers> => {
    const start = async (logLevel: string) => {
      const running = await startServer(
        loadConfig({
          DATA_DIR: path.join(dataDir, folder),
          DATABASE_URL: databaseUrl,
          API_TOKEN: TOKEN,
          LOG_LEVEL: logLevel,
          PORT: '0',
        }),
        { withWorker: false },
      );
      closers.unshift(() => running.close());
      return running;
    };
    const app = await start('info');
    const quietApp = await start('warn');
    const created = await app.app.inject({
      method: 'POST',
      url: '/api/v1/materials',
      headers: { 'x-api-token': TOKEN, 'content-type': 'application/json' },
      payload: MATERIAL,
    });
    const materialId = (JSON.parse(created.body) as { data: { id: number } }).data.id;
    const body = (
      await app.app.inject({ url: `/api/v1/materials/${materialId}`, headers: { 'x-api-token': TOKEN } })
    ).body;
    return { name, app: app.url, quietApp: quietApp.url, materialId, body };
  };

  const served = [await startApps('SQLite', `sqlite:${path.join(dataDir, 'bench.db')}`, 'sqlite')];
  if (postgresUrl) served.push(await startApps('PostgreSQL', postgresUrl, 'postgres'));
  reportAndWait(served, closers, () => fs.rmSync(dataDir, { recursive: true, force: true }));
}

/** What the bare child needs from the parent. */
interface BareSettings {
  sqliteBody: string;
  postgresUrl?: string;
}

async function serveBare({ sqliteBody, postgresUrl }: BareSettings): Promise<void> {
  const closers: (() => Promise<unknown>)[] = [];
  const bare = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    response.end(sqliteBody);
  });
  const served: BareServers = { sqlite: await listenOn(bare, closers), transfer: '' };

  if (postgresUrl) {
    // The least a server reading the row per request does: one pool query, the envelope, JSON.stringify.
    const pool = new pg.Pool({ connectionString: postgresUrl, max: 10 });
    closers.push(() => pool.end());
    const barePg = http.createServer((request, response) => {
      const id = Number(request.url!.slice(request.url!.lastIndexOf('/') + 1));
      void pool.query('select * from materials where id = $1', [id]).then(
        ({ rows: [row] }) => {
          const data = {
            ...row,
            id: Number(row.id),
            created_at: row.created_at.toISOString(),
            updated_at: row.updated_at.toISOString(),
          };
          response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
          response.end(JSON.stringify({ code: 0, message: 'success', data }));
        },
        (error: unknown) => response.writeHead(500).end(String(error)),
      );
    });
    served.postgres = await listenOn(barePg, closers);
  }

  let transferBody = Buffer.alloc(0);
  const bareTransfer = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'PUT') transferBody = Buffer.concat(chunks);
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end(request.method === 'PUT' ? '' : transferBody);
    });
  });
  served.transfer = await listenOn(bareTransfer, closers);
  reportAndWait(served, closers);
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

/** The URL of a module of the compiled service in `dist/`. */
function compiled(module: string): string {
  return new URL(`../dist/${module}`, import.meta.url).href;
}

/**
 * Builds `dist/` from the sources as `npm start` does. Run under tsx's loader, every function that names itself
 * calls a helper where it is created, and the hooks create some per request: not what the service runs.
 */
function buildService(): void {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    stdio: 'inherit',
  });
}

async function measure(): Promise<void> {
  buildService();
  const database = POSTGRES_URL ? await createPostgresDatabase(POSTGRES_URL) : undefined;
  const start = <T>(args: string[]) => {
    const child: ChildProcess = fork(import.meta.filename, args, {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    const served = new Promise<T>((resolve, reject) => {
      child.once('message', (message) => resolve(message as T));
      child.once('exit', (code) => reject(new Error(`a serving process exited with ${code}`)));
    });
    return { child, served };
  };
  const apps = start<AppServers[]>(['--serve-apps', ...(database ? [database.url] : [])]);
  const appServers = await apps.served;
  const settings: BareSettings = { sqliteBody: appServers[0]!.body, postgresUrl: database?.url };
  const bare = start<BareServers>(['--serve-bare', JSON.stringify(settings)]);
  const bareServers = await bare.served;
  const servers = {
    bareTransfer: bareServers.transfer,
    engines: appServers.map((served): Engine => ({
      ...served,
      bare: served.name === 'SQLite' ? bareServers.sqlite : bareServers.postgres!,
      bareLabel:
        served.name === 'SQLite'
          ? 'bare node:http, same JSON from memory (own process)'
          : 'bare node:http + pg, the row read per request (own process)',
    })),
  };
  const loadBefore = os.loadavg()[0];
  try {
    const rows = await measureReads(servers.engines);
    const lookups = new Map<string, number>();
    for (const engine of servers.engines)
      rows.push(...(await measureBulk(engine, servers.bareTransfer, lookups)));
    const sqlite = lookups.get('SQLite');
    const postgres = lookups.get('PostgreSQL');
    if (sqlite && postgres) {
      const ratio = postgres / sqlite;
      rows.push(['lookup 100,000: PostgreSQL / SQLite', ratio.toFixed(2), '≤ 1.3', met(ratio <= 1.3)]);
    }
    console.log(
      `\nMaterial service, Node ${process.version}, ${os.cpus().length} cores; autocannon ${CONNECTIONS} ` +
        `connections × ${SECONDS} s per run, two runs per server alternated; bulk figures are medians of ${RUNS} ` +
        `binds and ${LOOKUP_RUNS} lookups of each kind (fastest–slowest), lookups of each kind in a block of ` +
        `their own, each after a bare transfer; 1-minute load average ` +
        `${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end.\n`,
    );
    console.log('| measure | result | goal | met |');
    console.log('|---|---|---|---|');
    for (const row of rows) console.log(`| ${row.join(' | ')} |`);
  } finally {
    for (const { child } of [apps, bare]) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.send('stop');
      await exited;
    }
    await database?.drop();
  }
}

/** Requests/s of each app and of its bare server, alternated (forwards, then backwards) so drift cancels. */
async function measureReads(engines: Engine[]): Promise<string[][]> {
  const load = async (url: string, seconds = SECONDS) => {
    const result = await autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      headers: { 'x-api-token': TOKEN },
    });
    if (result.errors || result.timeouts || result.non2xx) {
      throw new Error(
        `${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx`,
      );
    }
    return result.requests.average;
  };
  const targets = engines.flatMap((engine) => {
    const path = `/api/v1/materials/${engine.materialId}`;
    return [
      { key: `${engine.name} bare`, url: `${engine.bare}${path}` },
      { key: `${engine.name} info`, url: `${engine.app}${path}` },
      { key: `${engine.name} warn`, url: `${engine.quietApp}${path}` },
    ];
  });
  for (const target of targets) await load(target.url, 2);
  const rates = new Map<string, number[]>();
  for (const order of [targets, [...targets].reverse()]) {
    for (const target of order)
      rates.set(target.key, [...(rates.get(target.key) ?? []), await load(target.url)]);
  }
  const rate = (key: string) => mean(rates.get(key)!);
  const rows: string[][] = [];
  for (const engine of engines) {
    const goal = engine.name === 'SQLite' ? 0.5 : 0.8;
    const bare = rate(`${engine.name} bare`);
    const ratio = (level: string) => rate(`${engine.name} ${level}`) / bare;
    const perSecond = (value: number) => `${Math.round(value).toLocaleString('en')} req/s`;
    rows.push(
      [`${engine.name}: ${engine.bareLabel}`, perSecond(bare), 'baseline', ''],
      [
        `${engine.name}: GET /api/v1/materials/:id, LOG_LEVEL=info (default)`,
        perSecond(rate(`${engine.name} info`)),
        '',
        '',
      ],
      [
        `${engine.name}: GET /api/v1/materials/:id, LOG_LEVEL=warn`,
        perSecond(rate(`${engine.name} warn`)),
        '',
        '',
      ],
      [
        `${engine.name}: ratio app / bare, LOG_LEVEL=info`,
        ratio('info').toFixed(2),
        `≥ ${goal}`,
        met(ratio('info') >= goal),
      ],
      [
        `${engine.name}: ratio app / bare, LOG_LEVEL=warn`,
        ratio('warn').toFixed(2),
        `≥ ${goal}`,
        met(ratio('warn') >= goal),
      ],
    );
  }
  return rows;
}

/** Bind, move and lookup of 100,000 group ids, end to end over HTTP (request sent to the last byte read). */
async function measureBulk(
  engine: Engine,
  bareTransfer: string,
  lookups: Map<string, number>,
): Promise<string[][]> {
  const base = engine.quietApp;
  const materials: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const created = await call(base, 'POST', '/api/v1/materials', { name: `bulk ${i}` });
    materials.push((JSON.parse(created.body.toString()) as { data: { id: number } }).data.id);
  }
  // Each run binds 100,000 new ids, as the upload of a new model would; a warm-up run goes first.
  const bindTimes: number[] = [];
  const allIds: string[][] = [];
  for (let run = 0; run <= RUNS; run++) {
    const ids = Array.from({ length: BULK }, (_, i) => `model-${run}:${i}`);
    allIds.push(ids);
    const { ms } = await call(base, 'POST', `/api/v1/materials/${materials[run]}/bindings`, {
      group_ids: ids,
    });
    if (run > 0) bindTimes.push(ms);
  }
  // Half the looked-up ids are bound (to several materials), half are not: the default entry fills them in.
  const lookupIds = Array.from(
    { length: BULK },
    (_, i) => (i % 2 === 0 ? allIds[1 + (i % RUNS)]![i] : `unbound-${i}`)!,
  );
  const lookupBody = { group_ids: lookupIds, include_default: true };
  const first = await call(base, 'POST', '/api/v1/groups/materials', lookupBody);
  const entries = (JSON.parse(first.body.toString()) as { data: unknown[] }).data.length;
  if (entries !== BULK) throw new Error(`lookup answered ${entries} entries, expected ${BULK}`);
  await call(bareTransfer, 'PUT', '/', first.body);

  const lookupTimes: number[] = [];
  const freshTimes: number[] = [];
  const unseenTimes: number[] = [];
  // The bare transfers of each block, which that block's lookups are compared with.
  const bareBy = { repeated: [] as number[], patched: [] as number[], unseen: [] as number[] };
  const encoded: Record<'br' | 'gzip', { times: number[]; bytes: number }> = {
    br: { times: [], bytes: 0 },
    gzip: { times: [], bytes: 0 },
  };
  // Each kind is measured in a block of its own, each lookup right after a bare transfer (the first of each block
  // is a warm-up): a lookup is then timed against the bare server under the same conditions, not while the app
  // collects the garbage of the 30 MB replies written anew by another kind the moment before.
  const timed = (run: number, times: number[], ms: number) => {
    if (run > 0) times.push(ms);
  };
  const sameBytes = (answer: Buffer, expected: Buffer, what: string) => {
    if (!answer.equals(expected)) throw new Error(`${what} answered other bytes`);
  };
  // Repeated: the same request again, as a viewer reopening a model sends it.
  for (let run = 0; run <= LOOKUP_RUNS; run++) {
    const bare = await call(bareTransfer, 'POST', '/', lookupBody);
    const app = await call(base, 'POST', '/api/v1/groups/materials', lookupBody);
    sameBytes(bare.body, first.body, 'the bare server');
    sameBytes(app.body, first.body, 'the repeated lookup');
    timed(run, bareBy.repeated, bare.ms);
    timed(run, lookupTimes, app.ms);
  }
  // Patched: one of its groups moves to another material just before, as a viewer painting one part does; the
  // kept reply is patched with that group's new entry.
  let patched = first.body;
  for (let run = 0; run <= LOOKUP_RUNS; run++) {
    const bare = await call(bareTransfer, 'POST', '/', lookupBody);
    const target = materials[run % 2 === 0 ? 2 : 1]!;
    await call(base, 'POST', `/api/v1/materials/${target}/bindings`, { group_ids: [lookupIds[0]] });
    const fresh = await call(base, 'POST', '/api/v1/groups/materials', lookupBody);
    const shownFirst = (JSON.parse(fresh.body.toString()) as { data: { material: { id: number } }[] })
      .data[0];
    if (shownFirst?.material.id !== target) throw new Error('the patched lookup missed the change');
    timed(run, bareBy.patched, bare.ms);
    timed(run, freshTimes, fresh.ms);
    patched = fresh.body;
  }
  // A request not kept (the same ids followed by white space): every binding read, the reply written anew. Every
  // patch above touched the same entry, so the last patched reply matching these bytes checks them all.
  for (let run = 0; run <= LOOKUP_RUNS; run++) {
    const bare = await call(bareTransfer, 'POST', '/', lookupBody);
    const unseen = await call(
      base,
      'POST',
      '/api/v1/groups/materials',
      Buffer.from(`${JSON.stringify(lookupBody)}${' '.repeat(run + 1)}`),
    );
    sameBytes(unseen.body, patched, 'a lookup read in full (against the patched one)');
    timed(run, bareBy.unseen, bare.ms);
    timed(run, unseenTimes, unseen.ms);
  }
  for (let run = 0; run <= LOOKUP_RUNS; run++) {
    for (const encoding of ['br', 'gzip'] as const) {
      const answer = await call(base, 'POST', '/api/v1/groups/materials', lookupBody, {
        'accept-encoding': encoding,
      });
      if (answer.headers['content-encoding'] !== encoding) throw new Error(`no ${encoding} reply`);
      encoded[encoding].bytes = answer.body.length;
      timed(run, encoded[encoding].times, answer.ms);
    }
  }
  // The engines compare on what reads every binding: a request not kept.
  lookups.set(engine.name, median(unseenTimes));
  // Moving 100,000 bound ids to another material rewrites every row. It runs after the lookups: on PostgreSQL
  // the dead row versions it leaves slow index reads until autovacuum has passed.
  const moveTimes: number[] = [];
  for (let run = 1; run <= RUNS; run++) {
    const { ms } = await call(base, 'POST', `/api/v1/materials/${materials[0]}/bindings`, {
      group_ids: allIds[run],
    });
    moveTimes.push(ms);
  }
  const ratio = median(lookupTimes) / median(bareBy.repeated);
  const freshRatio = median(freshTimes) / median(bareBy.patched);
  const unseenRatio = median(unseenTimes) / median(bareBy.unseen);
  /** A ratio with the medians it divides: the kind's lookups over the bare transfers of its block. */
  const shown = (value: number, lookups: number[], bare: number[]) =>
    `${value.toFixed(2)} (${(median(lookups) / 1000).toFixed(3)} s / ${(median(bare) / 1000).toFixed(3)} s)`;
  const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
  const name = engine.name;
  return [
    [
      `${name}: bind 100,000 new group_ids in one call`,
      seconds(bindTimes),
      '≤ 1 s',
      met(median(bindTimes) <= 1000),
    ],
    [`${name}: move 100,000 bound group_ids to another material`, seconds(moveTimes), '', ''],
    [
      `${name}: bare transfer of the same request and reply bytes (${megabytes(first.body.length)})`,
      seconds([...bareBy.repeated, ...bareBy.patched, ...bareBy.unseen]),
      'baseline',
      '',
    ],
    [`${name}: lookup 100,000 (include_default), uncompressed, repeated`, seconds(lookupTimes), '', ''],
    [
      `${name}: ratio repeated lookup / bare transfer (same block)`,
      shown(ratio, lookupTimes, bareBy.repeated),
      '≤ 1.5',
      met(ratio <= 1.5),
    ],
    [`${name}: lookup 100,000, first after one of its groups moved (patched)`, seconds(freshTimes), '', ''],
    [
      `${name}: ratio first lookup after a change / bare transfer (same block)`,
      shown(freshRatio, freshTimes, bareBy.patched),
      '≤ 1.5',
      met(freshRatio <= 1.5),
    ],
    [`${name}: lookup 100,000, a request not kept (read in full)`, seconds(unseenTimes), '', ''],
    [
      `${name}: ratio request not kept / bare transfer (same block)`,
      shown(unseenRatio, unseenTimes, bareBy.unseen),
      '',
      '',
    ],
    ...(['br', 'gzip'] as const).map((encoding) => [
      `${name}: lookup 100,000, ${encoding}: time; bytes sent`,
      `${seconds(encoded[encoding].times)}; ${megabytes(encoded[encoding].bytes)}`,
      '≤ 0.6 MB',
      met(encoded[encoding].bytes <= 600_000),
    ]),
  ];
}

/** One request over a fresh connection, its body read as raw bytes (never decompressed, never decoded). */
function call(
  base: string,
  method: string,
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const payload = Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
  const start = performance.now();
  return new Promise<{ ms: number; body: Buffer; headers: http.IncomingHttpHeaders }>((resolve, reject) => {
    const request = http.request(`${base}${url}`, {
      method,
      headers: {
        'x-api-token': TOKEN,
        'content-type': 'application/json',
        'content-length': payload.length,
        ...headers,
      },
    });
    request.on('error', reject);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const ms = performance.now() - start;
        const data = Buffer.concat(chunks);
        if (response.statusCode! >= 300) {
          reject(
            new Error(`${method} ${url} answered ${response.statusCode}: ${data.toString().slice(0, 200)}`),
          );
        } else resolve({ ms, body: data, headers: response.headers });
      });
    });
    request.end(payload);
  });
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
