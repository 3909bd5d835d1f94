// Models of many parts through the whole service on its defaults: `vitrine start` (one process, in-process queue) on
// SQLite and, when TEST_DATABASE_URL is set, on PostgreSQL. Each model written in code (bench/many-parts-models.ts)
// is uploaded and timed from the upload to `completed`; the service's peak resident memory (its process and any
// conversion process, sampled every 50 ms) is read against its idle size. OBJ models are also converted as one part
// of the same triangles, the baseline of the part count's cost; LOD 0 of the repeated-shape models is set against
// `gltfpack -cc -noq -mi` of the same source.
// Usage: TEST_DATABASE_URL=postgres://… nice npx tsx bench/many-parts.ts
//   MANY_PARTS_SIZES=1000,10000,100000  MANY_PARTS_KINDS=obj-distinct,obj-repeated,ifc,gltf-instanced
//   MANY_PARTS_TIMEOUT_MINUTES=30 (a model still converting then is reported as such and the run goes on)
//   MANY_PARTS_ANCHOR=0 (leaves gltfpack out: minutes a model at 100,000 parts, and the same for the same source)
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pack } from 'gltfpack';
import { createTestDatabase, type TestDatabase } from '../test/helpers/databases.ts';
import {
  freePort,
  killChildren,
  readModel,
  runCli,
  sleep,
  tempDir,
  uploadModel,
  waitForHealth,
  type ServiceProcess,
} from '../test/system/service-process.ts';
import { manyPartsObj } from '../test/fixtures/many-parts-obj.ts';
import { instancedGltf, manyElementsIfc, REPEATED_SHAPES } from './many-parts-models.ts';

const SIZES = (process.env.MANY_PARTS_SIZES ?? '1000,10000,100000').split(',').map(Number);
const KINDS = (process.env.MANY_PARTS_KINDS ?? 'obj-distinct,obj-repeated,ifc,gltf-instanced').split(',');
const TIMEOUT_MS = Number(process.env.MANY_PARTS_TIMEOUT_MINUTES ?? 30) * 60_000;
const TOKEN = 'many-parts-bench-token-0123456789';
const ANCHORED = process.env.MANY_PARTS_ANCHOR !== '0';

/** One model to convert: its file name and bytes, and whether gltfpack's instanced output is its size anchor. */
interface BenchModel {
  kind: string;
  parts: number;
  name: string;
  bytes: () => Promise<Uint8Array>;
  anchor: boolean;
}

/** What one conversion gave. */
interface Outcome {
  status: string;
  error: string | null;
  ms: number;
  peakGrowth: number;
  triangles: number;
  partCount: number;
  lod0Bytes: number;
}

const text = (source: string) => Promise.resolve(new TextEncoder().encode(source));

/** The models of `kind` at `parts` parts, with the one-part baseline for OBJ. */
function modelsOf(kind: string, parts: number): BenchModel[] {
  switch (kind) {
    case 'obj-distinct':
    case 'obj-repeated': {
      const shape = kind === 'obj-repeated' ? 'repeated' : 'distinct';
      const obj = (oneGroup: boolean) =>
        text(manyPartsObj({ groups: parts, kind: shape, shapes: REPEATED_SHAPES, oneGroup }));
      // The baseline first, so the many-part row can give its ratio.
      return [
        {
          kind: `${kind} as one part`,
          parts,
          name: `${kind}-${parts}-one.obj`,
          bytes: () => obj(true),
          anchor: false,
        },
        {
          kind,
          parts,
          name: `${kind}-${parts}.obj`,
          bytes: () => obj(false),
          anchor: shape === 'repeated',
        },
      ];
    }
    case 'ifc':
      return [
        {
          kind,
          parts,
          name: `elements-${parts}.ifc`,
          bytes: () => text(manyElementsIfc(parts)),
          anchor: false,
        },
      ];
    case 'gltf-instanced':
      return [
        { kind, parts, name: `instanced-${parts}.glb`, bytes: () => instancedGltf(parts), anchor: true },
      ];
    default:
      throw new Error(`Unknown MANY_PARTS_KINDS entry ${kind}`);
  }
}

/** The children of process `pid`, from every one of its threads (Linux; none elsewhere). */
function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) => {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      return listed ? listed.split(' ').map(Number) : [];
    });
  } catch {
    return [];
  }
}

/** Resident memory of `pid` and its children, in bytes (Linux; 0 elsewhere). */
function treeRss(pid: number): number {
  let bytes = 0;
  for (const each of [pid, ...childrenOf(pid)]) {
    try {
      const status = readFileSync(`/proc/${each}/status`, 'utf8');
      bytes += Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1] ?? 0) * 1024;
    } catch {
      // Ended between two reads.
    }
  }
  return bytes;
}

/** gltfpack's `-cc -noq -mi` output size for the model's source bytes. */
async function gltfpackBytes(name: string, bytes: Uint8Array): Promise<number> {
  const input = `in${path.extname(name)}`;
  const files = new Map<string, Uint8Array>([[input, bytes]]);
  await pack(['-i', input, '-o', 'out.glb', '-cc', '-noq', '-mi', '-kn'], {
    read: (file: string) => files.get(path.basename(file))!,
    write: (file: string, data: Uint8Array) => void files.set(path.basename(file), data.slice()),
  });
  return files.get('out.glb')!.byteLength;
}

/**
 * Uploads `file`, trying twice more when the connection fails (the service answering early and closing while a
 * 40 MB body is still on its way): the benchmark measures conversions, and says what the service logged.
 */
async function uploadWithRetries(url: string, service: ServiceProcess, file: string) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await uploadModel(url, TOKEN, file);
    } catch (error) {
      if (attempt === 3) throw error;
      console.error(`upload of ${path.basename(file)} failed (${String(error)}); the service said:`);
      console.error(service.stderr().slice(-2_000) || service.stdout().slice(-2_000));
      await sleep(5_000);
    }
  }
}

/**
 * Reads the model, trying again after a connection the service closed as it was reused: on a loaded machine a
 * kept-alive socket can time out on the service's side just as the next poll takes it.
 */
async function readModelRetrying(url: string, id: string): ReturnType<typeof readModel> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await readModel(url, TOKEN, id);
    } catch (error) {
      if (attempt >= 5 || !(error instanceof TypeError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }
}

/** Uploads `file` to the service at `url` and follows it to its end, sampling the service's memory. */
async function convertThrough(url: string, service: ServiceProcess, file: string): Promise<Outcome> {
  const pid = service.child.pid!;
  const idle = treeRss(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRss(pid))), 50);
  const started = performance.now();
  try {
    const { id } = await uploadWithRetries(url, service, file);
    for (;;) {
      const model = (await readModelRetrying(url, id)) as Awaited<ReturnType<typeof readModel>> & {
        part_count: number | null;
      };
      const ms = performance.now() - started;
      if (model.status === 'completed' || model.status === 'failed' || ms > TIMEOUT_MS) {
        let lod0Bytes = 0;
        if (model.status === 'completed' && model.model_url)
          lod0Bytes = (
            await (await fetch(model.model_url, { headers: { 'x-api-token': TOKEN } })).arrayBuffer()
          ).byteLength;
        await fetch(`${url}/api/models/${id}`, { method: 'DELETE', headers: { 'x-api-token': TOKEN } });
        return {
          status: ms > TIMEOUT_MS && model.status !== 'completed' ? `still ${model.status}` : model.status,
          error: model.error,
          ms,
          peakGrowth: peak - idle,
          triangles: model.triangle_count ?? 0,
          partCount: model.part_count ?? 0,
          lod0Bytes,
        };
      }
      await sleep(250);
    }
  } finally {
    clearInterval(sampler);
  }
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

const dialects: ('sqlite' | 'postgres')[] = process.env.TEST_DATABASE_URL
  ? ['sqlite', 'postgres']
  : ['sqlite'];
if (!process.env.TEST_DATABASE_URL)
  console.log('PostgreSQL skipped: set TEST_DATABASE_URL to measure it too.\n');
console.log(
  `load average at start: ${(await import('node:os'))
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}\n`,
);
console.log(
  '| database | model | parts | status | seconds | ms per part | × one part | peak RSS growth MiB | peak ÷ (120 B a triangle + 4 KB a part) | LOD 0 KiB | gltfpack -cc -noq -mi KiB | ÷ gltfpack |',
);
console.log('|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|');

for (const dialect of dialects) {
  const dataDir = tempDir('many-parts');
  let database: TestDatabase | undefined;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PORT: String(port),
    DATA_DIR: dataDir,
    API_TOKEN: TOKEN,
    HOST: '127.0.0.1',
  };
  if (dialect === 'postgres') {
    database = await createTestDatabase('postgres');
    env.DATABASE_URL = database.url;
  }
  const service = runCli('start', env);
  try {
    await service.waitForOutput(/Vitrine is running at/, 120_000);
    await waitForHealth(url);
    for (const parts of SIZES) {
      const onePartMs = new Map<string, number>();
      for (const kind of KINDS) {
        for (const model of modelsOf(kind, parts)) {
          const file = path.join(dataDir, model.name);
          const bytes = await model.bytes();
          writeFileSync(file, bytes);
          const outcome = await convertThrough(url, service, file);
          rmSync(file);
          if (model.kind.endsWith('as one part')) onePartMs.set(kind, outcome.ms);
          const baseline = onePartMs.get(model.kind.replace(/ as one part$/, ''));
          const anchor =
            ANCHORED && model.anchor && outcome.lod0Bytes ? await gltfpackBytes(model.name, bytes) : 0;
          // The goal's budget: 120 B a triangle and 4 KB a part; the figure is the peak against that budget.
          const budget = outcome.triangles * 120 + parts * 4096;
          console.log(
            `| ${dialect} | ${model.kind} | ${parts.toLocaleString('en')} | ${outcome.status}${outcome.error ? `: ${outcome.error}` : ''} | ${seconds(outcome.ms)} | ${(outcome.ms / parts).toFixed(3)} | ${
              baseline && !model.kind.endsWith('as one part') ? (outcome.ms / baseline).toFixed(2) : ''
            } | ${mib(outcome.peakGrowth)} | ${budget ? (outcome.peakGrowth / budget).toFixed(2) : ''} | ${(outcome.lod0Bytes / 1024).toFixed(0)} | ${
              anchor ? (anchor / 1024).toFixed(0) : ''
            } | ${anchor ? (outcome.lod0Bytes / anchor).toFixed(2) : ''} |`,
          );
        }
      }
    }
  } finally {
    service.child.kill('SIGTERM');
    await killChildren();
    await database?.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
